// `--pin name` end to end: exact name terms with the owner account the images carry, which the simulated Karpenter
// resolves as Karpenter does (DescribeImages by name under that owner), and a name that selects two images refused.
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

describe('--pin name', () => {
  it('pins every class by {name, owner}, and Karpenter resolves the terms to the target images: done, exit 0', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--pin', 'name', '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    const catalog = sandbox.aws.catalog;
    for (const nc of sandbox.kube.store.list(EC2NODECLASSES)) {
      const spec = nc.spec as { amiFamily: string; amiSelectorTerms: Array<{ name: string; owner: string }> };
      const status = nc.status as { amis: Array<{ id: string; name: string }> };
      expect(spec.amiFamily).toMatch(/^(AL2023|Bottlerocket)$/);
      for (const term of spec.amiSelectorTerms) {
        expect(Object.keys(term).sort()).toEqual(['name', 'owner']);
        const image = [...catalog.images.values()].find((i) => i.name === term.name)!;
        // The account, not the alias `amazon`: EKS (602401143452) and Bottlerocket (092701018921) publish apart.
        expect(term.owner).toBe(image.ownerId);
        expect(status.amis.map((a) => a.id)).toContain(image.imageId);
      }
    }
  });

  it('a name two images carry under the owner (an image copied into the same account) is refused: NAME-AMBIGUOUS, exit 3, nothing changed', async () => {
    const sandbox = await scenario('default');
    const written = await karpDrift(sandbox, [
      'plan',
      '--to',
      '1.30',
      '--pin',
      'name',
      '--nodeclass',
      'default',
      '-o',
      'json',
    ]);
    expect(written.code, written.stderr).toBe(0);
    const target = (
      JSON.parse(written.stdout) as { nodeClasses: Array<{ targets: Array<{ id: string; name: string }> }> }
    ).nodeClasses[0]!.targets[0]!;
    const image = sandbox.aws.catalog.images.get(target.id)!;
    const copy = { ...image, imageId: 'ami-0c0c0c0c0c0c0c0c0', creationDate: '2026-10-31T00:00:00.000Z' };
    sandbox.aws.catalog.images.set(copy.imageId, copy);
    const run = await karpDrift(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--pin',
      'name',
      '--nodeclass',
      'default',
      '--yes',
    ]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toContain(
      `NAME-AMBIGUOUS: ec2nodeclass/default: --pin name would select 2 images named ${target.name} owned by ${image.ownerId}, and Karpenter keeps only the newest of them`,
    );
    expect(run.stdout).toContain('next: pin it with --pin id (the image ID is unique)');
    expect(run.stderr).toContain('NAME-AMBIGUOUS; nothing was changed');
    expect(httpWrites(sandbox)).toBe(0);
  });
});
