// The release policy of `--release latest~N` and `--min-age` (issue 26): listing a family's releases from SSM parameter
// names, ordering and dating them, and choosing one.
import { describe, expect, it } from 'vitest';
import {
  chooseRelease,
  compareReleases,
  listedReleases,
  publishedAt,
  releaseFolder,
  releasePolicy,
  releasePolicyText,
  type ListedRelease,
  type ReleasePolicy,
} from '../../src/ami/release-policy.js';
import { ssmParameterPath, type AmiQuery } from '../../src/ami/parameters.js';
import type { AmiFamily, Arch, Variant } from '../../src/ami/families.js';

const DAY = 86_400_000;
const NOW = new Date('2026-11-28T12:00:00Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);

const query = (family: AmiFamily, arch: Arch = 'amd64', variant: Variant = 'standard'): AmiQuery => ({
  family,
  kubernetesVersion: '1.31',
  arch,
  variant,
  release: 'latest',
});

const released = (release: string, age?: number): ListedRelease => ({
  release,
  imageIds: [`ami-${release.replace(/\W/g, '')}`],
  ...(age !== undefined ? { published: daysAgo(age) } : {}),
});

// Newest first, as listedReleases returns them: published 2, 9, 16 and 30 days ago.
const AL2023 = [released('v20261126', 2), released('v20261119', 9), released('v20261112', 16), released('v20261029', 30)];
const week = { text: '7d', ms: 7 * DAY };

describe('releasePolicy', () => {
  it.each<[string, ReleasePolicy['minAge'], ReleasePolicy | undefined, string | undefined]>([
    ['latest', undefined, undefined, undefined],
    ['v20261119', undefined, undefined, undefined],
    ['latest~1', undefined, { behind: 1 }, 'latest~1'],
    ['latest', week, { behind: 0, minAge: week }, 'latest --min-age 7d'],
    ['latest~2', week, { behind: 2, minAge: week }, 'latest~2 --min-age 7d'],
  ])('--release %s (min-age %o) is %o', (release, minAge, policy, text) => {
    expect(releasePolicy(release, minAge)).toEqual(policy);
    if (policy !== undefined) expect(releasePolicyText(policy)).toBe(text);
  });
});

describe('chooseRelease', () => {
  it.each<[string, ReleasePolicy, string]>([
    ['latest~0 is the newest', { behind: 0 }, 'v20261126'],
    ['latest~1 is one behind', { behind: 1 }, 'v20261119'],
    ['latest~3 is the oldest listed', { behind: 3 }, 'v20261029'],
    ['--min-age 7d skips the release published 2 days ago', { behind: 0, minAge: week }, 'v20261119'],
    ['--min-age 9d: exactly 9 days old qualifies', { behind: 0, minAge: { text: '9d', ms: 9 * DAY } }, 'v20261119'],
    ['--min-age 36h', { behind: 0, minAge: { text: '36h', ms: 36 * 3_600_000 } }, 'v20261126'],
    ['latest~1 --min-age 7d: --min-age first, then one behind among those', { behind: 1, minAge: week }, 'v20261112'],
  ])('%s', (_name, policy, release) => {
    const result = chooseRelease('al2023', '1.31', AL2023, policy, NOW);
    expect(result).toHaveProperty('choice.release', release);
  });

  it('records what it chose against: the newest, and when each was published', () => {
    expect(chooseRelease('al2023', '1.31', AL2023, { behind: 1, minAge: week }, NOW)).toEqual({
      choice: {
        family: 'al2023',
        kubernetesVersion: '1.31',
        release: 'v20261112',
        published: '2026-11-12T12:00:00Z',
        newest: { release: 'v20261126', published: '2026-11-26T12:00:00Z' },
        listed: 4,
      },
    });
  });

  it('a release EC2 cannot date never qualifies for --min-age', () => {
    const bottlerocket = [released('1.27.0'), released('1.26.2', 20)];
    expect(chooseRelease('bottlerocket', '1.31', bottlerocket, { behind: 0, minAge: week }, NOW)).toHaveProperty(
      'choice.release',
      '1.26.2',
    );
  });

  it.each<[string, ReleasePolicy, readonly ListedRelease[], string, string]>([
    [
      'latest~N past the oldest names the family, the newest and its age, and the most N can be',
      { behind: 4 },
      AL2023,
      '--release latest~4: SSM lists only 4 releases of al2023 for Kubernetes 1.31 (newest v20261126, oldest v20261029); the newest, v20261126, was published 2026-11-26T12:00:00Z (2d old)',
      'pass --release latest~3 at most, or name a release outright: --release v20261029',
    ],
    [
      'latest~N counts only the releases old enough',
      { behind: 2, minAge: { text: '10d', ms: 10 * DAY } },
      AL2023,
      '--release latest~2 --min-age 10d: SSM lists only 2 releases of al2023 for Kubernetes 1.31 at least 10d old (newest v20261112, oldest v20261029); the newest, v20261126, was published 2026-11-26T12:00:00Z (2d old)',
      'pass --release latest~1 at most, or name a release outright: --release v20261029',
    ],
    [
      'no release old enough says when the first will be',
      { behind: 0, minAge: { text: '45d', ms: 45 * DAY } },
      AL2023,
      '--min-age 45d: no al2023 release for Kubernetes 1.31 is 45d old yet: the newest, v20261126, was published 2026-11-26T12:00:00Z (2d old), and 4 releases listed; v20261029 is the first to qualify, at 2026-12-13T12:00:00Z',
      'wait, or pass a shorter --min-age (v20261029 is 30d old), or name a release outright: --release v20261029',
    ],
    [
      'nothing listed for every arch and variant',
      { behind: 1 },
      [],
      '--release latest~1: SSM lists no al2023 release for Kubernetes 1.31 published for every architecture and variant needed',
      'check what is published with: karp-drift amis --to 1.31 --family al2023 --arch all --variant all',
    ],
  ])('refuses: %s', (_name, policy, releases, message, hint) => {
    expect(chooseRelease('al2023', '1.31', releases, policy, NOW)).toEqual({ problem: { family: 'al2023', message, hint } });
  });
});

describe('listing releases from SSM parameter names', () => {
  it.each<[AmiQuery, string]>([
    [query('al2023'), '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard'],
    [query('al2023', 'arm64', 'nvidia'), '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia'],
    [query('al2', 'amd64', 'neuron'), '/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu'],
    [query('bottlerocket', 'arm64', 'nvidia'), '/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64'],
  ])('the release folder of %o is %s', (q, folder) => {
    expect(releaseFolder(q)).toBe(folder);
  });

  it('has no release folder for Windows, which publishes only the latest', () => {
    expect(releaseFolder(query('windows2022'))).toBeUndefined();
  });

  const param = (q: AmiQuery, release: string, id: string): [string, string] => [ssmParameterPath({ ...q, release }), id];

  it('keeps only releases published for every query, newest first, whatever else the folder holds', () => {
    const standard = query('al2023');
    const nvidia = query('al2023', 'amd64', 'nvidia');
    const parameters = new Map<string, string>([
      param(standard, 'v20261029', 'ami-s1'),
      param(standard, 'v20261126', 'ami-s3'),
      param(standard, 'v20261112', 'ami-s2'),
      param(nvidia, 'v20261029', 'ami-n1'),
      param(nvidia, 'v20261112', 'ami-n2'),
      // The nvidia image of v20261126 is not out yet; recommended and the metadata leaves are no releases.
      param(standard, 'latest', 'ami-s3'),
      [`${releaseFolder(standard)}/amazon-eks-node-al2023-x86_64-standard-1.31-v20261126/image_name`, 'x'],
      [`${releaseFolder(standard)}/amazon-eks-node-al2023-x86_64-standard-1.31-v20261126`, '{"image_id":"ami-s3"}'],
    ]);
    expect(listedReleases([standard, nvidia], parameters)).toEqual([
      { release: 'v20261112', imageIds: ['ami-s2', 'ami-n2'] },
      { release: 'v20261029', imageIds: ['ami-s1', 'ami-n1'] },
    ]);
  });

  it('orders Bottlerocket by version, not as text', () => {
    const q = query('bottlerocket');
    const parameters = new Map([param(q, '1.9.0', 'ami-a'), param(q, '1.10.0', 'ami-b'), param(q, 'latest', 'ami-b')]);
    expect(listedReleases([q], parameters).map((r) => r.release)).toEqual(['1.10.0', '1.9.0']);
    expect(compareReleases('bottlerocket', '1.26.10', '1.26.9')).toBeGreaterThan(0);
  });

  it('AL2 nvidia and neuron share the GPU folder and image', () => {
    const parameters = new Map([param(query('al2', 'amd64', 'nvidia'), 'v20261112', 'ami-gpu')]);
    expect(listedReleases([query('al2', 'amd64', 'nvidia'), query('al2', 'amd64', 'neuron')], parameters)).toEqual([
      { release: 'v20261112', imageIds: ['ami-gpu'] },
    ]);
  });
});

describe('publishedAt', () => {
  it.each<[string, Array<string | undefined>, string | undefined]>([
    ['v20261112', [], '2026-11-12T00:00:00.000Z'],
    ['v20261112', ['2026-11-12T06:00:00.000Z', '2026-11-14T01:00:00.000Z'], '2026-11-14T01:00:00.000Z'],
    ['v20261112', ['2026-11-11T23:00:00.000Z'], '2026-11-12T00:00:00.000Z'],
    ['1.26.2', ['2026-11-12T06:00:00.000Z', undefined], '2026-11-12T06:00:00.000Z'],
    ['1.26.2', [undefined], undefined],
  ])('%s with CreationDates %o: %s', (release, created, published) => {
    expect(publishedAt(release, created)?.toISOString()).toBe(published);
  });
});
