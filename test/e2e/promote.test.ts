// Promotion of tested AMIs (`--amis-file`) end to end: the file `amis -o json` or `plan -o json` wrote where the AMIs
// were tested is pinned exactly, verified again in this region's EC2 (by ID here, by image name when the file comes
// from another region), and the applied classes record where their AMIs came from.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

interface AmisDoc {
  kubernetesVersion: string;
  region: string;
  amis: Array<{ family: string; arch: string; id: string; name: string; release: string }>;
}
interface PlanDoc {
  source: Record<string, unknown>;
  nodeClasses: Array<{ name: string; targets: Array<{ id: string; name: string }> }>;
  blocked: boolean;
}

describe('--amis-file: promote exactly the AMIs tested elsewhere', () => {
  it('staging wrote amis -o json in another region: the same releases, found here by name, pinned, rolled out and recorded', async () => {
    const sandbox = await scenario('default');
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-promote-'));
    const written = await karpDrift(sandbox, ['amis', '--to', '1.30', '--family', 'al2023,bottlerocket', '-o', 'json']);
    expect(written.code, written.stderr).toBe(0);
    // As if written in us-east-1: there the IDs are others, so they are made unknown here; only the names carry over.
    const staging = JSON.parse(written.stdout) as AmisDoc;
    const file = join(dir, 'amis-staging.json');
    const east = {
      ...staging,
      region: 'us-east-1',
      amis: staging.amis.map((a, i) => ({ ...a, id: `ami-0eeeeeeeeeeeeee${String(i).padStart(2, '0')}` })),
    };
    await writeFile(file, JSON.stringify(east, null, 2));

    const ssmCalls = () => sandbox.aws.requests.filter((r) => r.service === 'ssm').length;
    const ssmBefore = ssmCalls();
    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30', '--amis-file', file, '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as PlanDoc;
    expect(doc.source).toEqual({
      kind: 'file',
      path: file,
      shape: 'amis',
      region: 'us-west-2',
      fileRegion: 'us-east-1',
      kubernetesVersion: '1.30',
      lookup: 'name',
    });
    const byName = new Map(staging.amis.map((a) => [a.name, a.id]));
    for (const target of doc.nodeClasses.flatMap((c) => c.targets)) expect(target.id).toBe(byName.get(target.name));
    // Looked up by exact name among Amazon's images, with no SSM read at all.
    const describes = sandbox.aws.requests.filter(
      (r) => r.operation === 'DescribeImages' && r.params['Owner.1'] === 'amazon',
    );
    expect(describes.at(-1)?.params).toMatchObject({ 'Filter.1.Name': 'name', IncludeDeprecated: 'true' });

    const text = await karpDrift(sandbox, ['plan', '--to', '1.30', '--amis-file', file]);
    expect(text.stdout).toContain(`Kubernetes 1.30 (control plane 1.30), AMIs promoted from ${file} (release `);
    expect(text.stdout).toContain("found by image name in us-west-2 (the file's IDs are us-east-1's), pinned by id");

    const summary = join(dir, 'summary.md');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--amis-file', file, '--yes', '-o', 'json', '--summary-file', summary]);
    expect(run.code, run.stderr).toBe(0);
    expect(ssmCalls()).toBe(ssmBefore);
    // The audit record names the promoted source, as the terminal does, never "release latest".
    const md = await readFile(summary, 'utf8');
    expect(md).toContain(`Kubernetes 1.30 (control plane 1.30), AMIs promoted from ${file} (release `);
    expect(md).toContain("found by image name in us-west-2 (the file's IDs are us-east-1's), pinned by id");
    expect(md).not.toContain('release latest');
    expect(run.events[0]).toMatchObject({ type: 'resolved', source: { kind: 'file', lookup: 'name' } });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    for (const nc of sandbox.kube.store.list(EC2NODECLASSES)) {
      const release =
        nc.metadata.name === 'default'
          ? staging.amis.find((a) => a.family === 'al2023')!.release
          : staging.amis.find((a) => a.family === 'bottlerocket')!.release;
      expect(nc.metadata.annotations?.['karp-drift.io/promoted-from']).toBe(
        `file:amis-staging.json; release ${release}; from us-east-1`,
      );
      const ids = (nc.spec as { amiSelectorTerms: Array<{ id: string }> }).amiSelectorTerms.map((t) => t.id).sort();
      expect(ids).toEqual(
        staging.amis
          .filter((a) => a.family === (nc.metadata.name === 'default' ? 'al2023' : 'bottlerocket'))
          .map((a) => a.id)
          .sort(),
      );
    }

    // A later pin from SSM is not promoted: its server-side apply leaves the annotation out, so it goes.
    const catalog = sandbox.aws.catalog;
    const usable = (arch: string, release: string) =>
      catalog.releases.some(
        (r) =>
          r.family === 'al2023' &&
          r.kubernetesVersion === '1.30' &&
          r.variant === 'standard' &&
          r.arch === arch &&
          r.release === release &&
          (catalog.images.get(r.imageId)?.deprecationTime ?? '') > new Date(Date.now() + 30 * 86_400_000).toISOString(),
      );
    const older = catalog.releases
      .filter(
        (r) =>
          r.family === 'al2023' && r.kubernetesVersion === '1.30' && r.arch === 'amd64' && r.variant === 'standard',
      )
      .map((r) => r.release)
      .filter((r) => r !== staging.amis[0]!.release && usable('amd64', r) && usable('arm64', r))
      .sort()
      .at(-1)!;
    const repin = await karpDrift(sandbox, [
      'upgrade',
      '--to',
      '1.30',
      '--nodeclass',
      'default',
      '--release',
      older,
      '--yes',
      '--no-wait',
    ]);
    expect(repin.code, repin.stderr).toBe(0);
    const annotations = sandbox.kube.store.get(EC2NODECLASSES, 'default')!.metadata.annotations ?? {};
    expect(annotations['karp-drift.io/promoted-from']).toBeUndefined();
    expect(annotations['karp-drift.io/target']).toBe('1.30');
  });

  it('staging wrote plan -o json in this region: the IDs verified as they are; an AMI deregistered since blocks the plan (exit 3), nothing changed', async () => {
    const sandbox = await scenario('default');
    const dir = await mkdtemp(join(tmpdir(), 'karp-drift-promote-'));
    const written = await karpDrift(sandbox, ['plan', '--to', '1.30', '-o', 'json']);
    expect(written.code, written.stderr).toBe(0);
    const file = join(dir, 'plan-staging.json');
    await writeFile(file, written.stdout);
    const staging = JSON.parse(written.stdout) as PlanDoc;
    expect(staging.source).toEqual({ kind: 'ssm', region: 'us-west-2' });

    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30', '--amis-file', file, '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as PlanDoc;
    expect(doc.source).toMatchObject({ kind: 'file', shape: 'plan', fileRegion: 'us-west-2', lookup: 'id' });
    expect(doc.nodeClasses.map((c) => c.targets)).toEqual(staging.nodeClasses.map((c) => c.targets));
    const describes = sandbox.aws.requests.filter((r) => r.operation === 'DescribeImages');
    expect(describes.at(-1)?.params).toMatchObject({ 'Filter.1.Name': 'image-id' });

    // The tested al2023 amd64 image is deregistered before production promotes it.
    const gone = staging.nodeClasses.find((c) => c.name === 'default')!.targets[0]!;
    sandbox.aws.catalog.images.delete(gone.id);
    sandbox.aws.catalog.deregisteredImageIds.add(gone.id);
    const refused = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--amis-file', file, '--yes']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stdout).toContain(
      `AMI-MISSING: the al2023 amd64 standard AMI for Kubernetes 1.30 (${gone.id}) is not usable: EC2 DescribeImages in us-west-2 does not return ${gone.id} (${gone.name}), which plan-staging.json records: it was deregistered since it was tested, or is not available`,
    );
    expect(refused.stdout).toContain(
      `next: the tested AMI cannot be pinned here: test a release that is still published where it was tested, and promote its file; or plan without --amis-file ${file} to resolve from SSM`,
    );
    expect(refused.stderr).toContain('error: the plan has 1 error-level check(s): AMI-MISSING; nothing was changed');
    expect(httpWrites(sandbox)).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(written.stdout);
  });
});
