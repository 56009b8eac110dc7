// A promoted AMI is verified again where it is pinned: the image EC2 returns must be exactly the one tested.
import { describe, expect, it } from 'vitest';
import type { PromotedAmi } from '../../src/ami/amis-file.js';
import type { ImageView } from '../../src/ami/verify.js';
import { verifyPromoted, type PromotedLookup } from '../../src/ami/verify-promoted.js';

const now = new Date('2026-11-01T00:00:00.000Z');
const NAME = 'amazon-eks-node-al2023-x86_64-standard-1.31-v20261020';
const tested: PromotedAmi = {
  family: 'al2023',
  arch: 'amd64',
  variant: 'standard',
  release: 'v20261020',
  id: 'ami-0aaaaaaaaaaaaaaaa',
  name: NAME,
};
const image = (overrides: Partial<ImageView> = {}): ImageView => ({
  id: 'ami-0aaaaaaaaaaaaaaaa',
  name: NAME,
  state: 'available',
  architecture: 'x86_64',
  creationDate: '2026-10-20T08:00:00.000Z',
  deprecationTime: '2028-10-20T08:00:00.000Z',
  ...overrides,
});
const byId: PromotedLookup = { file: 'amis.json', region: 'us-west-2', lookup: 'id' };
const byName: PromotedLookup = { ...byId, lookup: 'name' };

describe('verifyPromoted', () => {
  it('the same image: usable, with the file release and the ID found', () => {
    expect(verifyPromoted(tested, '1.31', [image()], byId, now)).toMatchObject({
      id: tested.id,
      name: NAME,
      release: 'v20261020',
      usable: true,
      deprecated: false,
      problems: [],
    });
  });

  it('another region: the ID EC2 has here for the same name', () => {
    expect(verifyPromoted(tested, '1.31', [image({ id: 'ami-0bbbbbbbbbbbbbbbb' })], byName, now)).toMatchObject({
      id: 'ami-0bbbbbbbbbbbbbbbb',
      usable: true,
    });
  });

  it.each<[string, ImageView[], PromotedLookup, string]>([
    [
      'deregistered since (by ID)',
      [],
      byId,
      'EC2 DescribeImages in us-west-2 does not return ami-0aaaaaaaaaaaaaaaa (amazon-eks-node-al2023-x86_64-standard-1.31-v20261020), which amis.json records: it was deregistered since it was tested, or is not available',
    ],
    [
      'not published here (by name)',
      [],
      byName,
      'EC2 DescribeImages in us-west-2 finds no image named amazon-eks-node-al2023-x86_64-standard-1.31-v20261020 owned by amazon, which amis.json records: that release is not published in us-west-2, or was deregistered',
    ],
    [
      'two images with the name',
      [image(), image({ id: 'ami-0cccccccccccccccc' })],
      byName,
      'EC2 DescribeImages in us-west-2 finds 2 images named amazon-eks-node-al2023-x86_64-standard-1.31-v20261020 owned by amazon (ami-0aaaaaaaaaaaaaaaa, ami-0cccccccccccccccc): which one was tested is ambiguous',
    ],
    [
      'the ID now names another release',
      [image({ name: NAME.replace('v20261020', 'v20261101') })],
      byId,
      'ami-0aaaaaaaaaaaaaaaa is named amazon-eks-node-al2023-x86_64-standard-1.31-v20261101, not amazon-eks-node-al2023-x86_64-standard-1.31-v20261020 as amis.json records: it is not the image that was tested',
    ],
    ['not available', [image({ state: 'failed' })], byId, 'state is failed, not available'],
  ])('%s: not usable', (_name, images, where, problem) => {
    const ami = verifyPromoted(tested, '1.31', images, where, now);
    expect(ami.usable).toBe(false);
    expect(ami.problems[0]).toBe(problem);
  });

  it('deprecated: usable, marked for the plan to judge (AMI-DEPRECATED, --allow-deprecated)', () => {
    const ami = verifyPromoted(tested, '1.31', [image({ deprecationTime: '2026-10-01T00:00:00.000Z' })], byId, now);
    expect(ami).toMatchObject({ usable: true, deprecated: true, problems: ['deprecated since 2026-10-01'] });
  });
});
