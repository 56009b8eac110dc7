// Promotion read straight from the cluster that tested the AMIs (`--from-context`, `--from-kubeconfig`), end to end
// with two sandboxes at once: "staging" is upgraded first, then "prod" is pinned to exactly the images staging's
// classes pin and its nodes run. A staging that has no one tested state (mid-rollout, another minor) is refused with
// exit 3, and a context the kubeconfig lacks with exit 2, with no write reaching either cluster.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { writeKubeconfig } from '../../src/sandbox/kube-api/kubeconfig.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const NODECLAIMS = 'nodeclaims.karpenter.sh';

interface PlanDoc {
  source: Record<string, unknown>;
  nodeClasses: Array<{ name: string; family: string; targets: Array<{ id: string; name: string; release: string }> }>;
  blocked: boolean;
}

/** KUBECONFIG with both sandboxes, as `aws eks update-kubeconfig` leaves a workstation: contexts prod and staging. */
async function mergedKubeconfig(prod: Sandbox, staging: Sandbox): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-promote-context-'));
  const entry = (s: Sandbox, name: string) =>
    writeKubeconfig(join(dir, name), {
      server: s.kube.url,
      caData: s.kube.caData,
      token: s.kube.token,
      clusterName: name,
    });
  await Promise.all([entry(prod, 'prod'), entry(staging, 'staging')]);
  // kubectl's merge: the first file's current-context (prod) is the one in use.
  return `${join(dir, 'prod')}:${join(dir, 'staging')}`;
}

/** The image each of staging's classes runs: status.imageID of its NodeClaims (one per arch once settled). */
function runningImages(s: Sandbox): Map<string, Set<string>> {
  const byClass = new Map<string, Set<string>>();
  for (const claim of s.kube.store.list(NODECLAIMS)) {
    const spec = claim.spec as { nodeClassRef: { name: string } };
    const status = claim.status as { imageID?: string } | undefined;
    if (status?.imageID === undefined) continue;
    const ids = byClass.get(spec.nodeClassRef.name) ?? new Set<string>();
    byClass.set(spec.nodeClassRef.name, ids.add(status.imageID));
  }
  return byClass;
}

/** Requests either cluster received, for "nothing was sent to staging at all". */
const requests = (s: Sandbox) => s.kube.requests.length;

describe('--from-context: promote exactly what the source cluster runs', () => {
  it('staging upgraded to an older al2023 release: prod plans and pins those very images, and records the context', async () => {
    const [staging, prod] = await Promise.all([scenario('default'), scenario('default')]);
    expect(staging.kube.url).not.toBe(prod.kube.url);
    const KUBECONFIG = await mergedKubeconfig(prod, staging);

    // Staging runs an al2023 release older than SSM's newest, so SSM's choice in prod would differ from it.
    const catalog = staging.aws.catalog;
    const al2023 = (arch: string) =>
      catalog.releases.filter(
        (r) => r.family === 'al2023' && r.kubernetesVersion === '1.30' && r.variant === 'standard' && r.arch === arch,
      );
    const usable = (arch: string, release: string) =>
      al2023(arch).some(
        (r) =>
          r.release === release &&
          (catalog.images.get(r.imageId)?.deprecationTime ?? '') > new Date(Date.now() + 30 * 86_400_000).toISOString(),
      );
    const releases = [...new Set(al2023('amd64').map((r) => r.release))].sort();
    const older = releases.filter((r) => r !== releases.at(-1) && usable('amd64', r) && usable('arm64', r)).at(-1)!;
    expect(older).toBeDefined();
    const upgradeStaging = async (args: string[]) => {
      const run = await karpDrift(staging, ['upgrade', '--to', '1.30', ...args, '--yes', '-o', 'json'], 120_000);
      expect(run.code, run.stderr).toBe(0);
    };
    await upgradeStaging(['--nodeclass', 'default', '--release', older]);

    // Staging's Bottlerocket class still runs 1.29: a plan that pins only AL2023 promotes, and says so ...
    const partial = await karpDrift(
      prod,
      ['plan', '--to', '1.30', '--nodeclass', 'default', '--from-context', 'staging', '-o', 'json'],
      90_000,
      { KUBECONFIG },
    );
    expect(partial.code, partial.stderr).toBe(0);
    const partialDoc = JSON.parse(partial.stdout) as PlanDoc & {
      source: { otherClasses: Array<{ name: string; family: string; settled: boolean; amis: Array<Record<string, string>> }> };
    };
    expect(partialDoc.blocked).toBe(false);
    expect(partialDoc.nodeClasses.map((c) => c.targets.map((t) => t.release))).toEqual([[older, older]]);
    expect(partialDoc.source.otherClasses.map((c) => [c.name, c.family, c.settled])).toEqual([
      ['bottlerocket', 'bottlerocket', true],
    ]);
    expect(new Set(partialDoc.source.otherClasses[0]!.amis.map((a) => a.kubernetesVersion))).toEqual(new Set(['1.29']));
    const partialText = await karpDrift(
      prod,
      ['plan', '--to', '1.30', '--nodeclass', 'default', '--from-context', 'staging'],
      90_000,
      { KUBECONFIG },
    );
    expect(partialText.code, partialText.stderr).toBe(0);
    expect(partialText.stdout.split('\n')[1]).toBe(
      'Not promoted from context staging, so not required to be on 1.30 there: ec2nodeclass/bottlerocket (bottlerocket amd64 standard and arm64 standard on Kubernetes 1.29)',
    );
    // ... and one that pins Bottlerocket too is refused (exit 3), naming that class.
    const all = await karpDrift(prod, ['plan', '--to', '1.30', '--from-context', 'staging'], 90_000, { KUBECONFIG });
    expect(all.code, all.stderr).toBe(3);
    expect(all.stderr).toContain(
      `error: source context staging (${staging.kube.url}) runs Kubernetes 1.29 AMIs on some nodes, not 1.30 (--to), for what this plan pins (bottlerocket `,
    );
    expect(all.stderr).toContain(
      'next: upgrade ec2nodeclass/bottlerocket of staging to 1.30 first (karp-drift upgrade --to 1.30 --context staging --nodeclass bottlerocket), then promote; or promote only the classes here that need none of it (--nodeclass)',
    );
    await upgradeStaging(['--nodeclass', 'bottlerocket']);
    const ran = runningImages(staging);
    const stagingWrites = httpWrites(staging);
    const ssmCalls = () => prod.aws.requests.filter((r) => r.service === 'ssm').length;
    const ssmBefore = ssmCalls();

    const plan = await karpDrift(prod, ['plan', '--to', '1.30', '--from-context', 'staging', '-o', 'json'], 90_000, {
      KUBECONFIG,
    });
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as PlanDoc;
    // The sandbox's kubeconfig does not tell its region (a 127.0.0.1 server, a token user): found here by image name.
    expect(doc.source).toEqual({
      kind: 'cluster',
      context: 'staging',
      server: staging.kube.url,
      region: 'us-west-2',
      sourceRegion: null,
      kubernetesVersion: '1.30',
      lookup: 'name',
      otherClasses: [],
    });
    expect(doc.blocked).toBe(false);
    for (const c of doc.nodeClasses) {
      expect(new Set(c.targets.map((t) => t.id))).toEqual(ran.get(c.name));
      if (c.family === 'al2023') expect(c.targets.map((t) => t.release)).toEqual([older, older]);
    }
    expect(plan.stderr).toContain(`Source cluster staging (${staging.kube.url}): Kubernetes v1.30`);

    const text = await karpDrift(prod, ['plan', '--to', '1.30', '--from-context', 'staging'], 90_000, { KUBECONFIG });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `Kubernetes 1.30 (control plane 1.30), AMIs promoted from context staging at ${staging.kube.url} (release `,
    );
    expect(text.stdout).toContain('found by image name in us-west-2, pinned by id');
    expect(`${text.stdout}${text.stderr}`).not.toContain(staging.kube.token);

    const run = await karpDrift(
      prod,
      ['upgrade', '--to', '1.30', '--from-context', 'staging', '--yes', '-o', 'json'],
      120_000,
      { KUBECONFIG },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.events[0]).toMatchObject({ type: 'resolved', source: { kind: 'cluster', context: 'staging' } });
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    expect(ssmCalls()).toBe(ssmBefore);
    for (const nc of prod.kube.store.list(EC2NODECLASSES)) {
      const name = nc.metadata.name!;
      const ids = (nc.spec as { amiSelectorTerms: Array<{ id: string }> }).amiSelectorTerms.map((t) => t.id);
      expect(new Set(ids)).toEqual(ran.get(name));
      const release = doc.nodeClasses.find((c) => c.name === name)!.targets[0]!.release;
      expect(nc.metadata.annotations?.['karp-drift.io/promoted-from']).toBe(`context:staging; release ${release}`);
    }
    expect(runningImages(prod)).toEqual(ran);
    // Staging was only read.
    expect(httpWrites(staging)).toBe(stagingWrites);
  });

  it('refusals change nothing in either cluster: a context the kubeconfig lacks (2), staging on another minor (3), staging mid-rollout (3)', async () => {
    // Staging at speed 1: once its upgrade is applied, its rollout takes minutes, so it is caught mid-way.
    const [staging, prod] = await Promise.all([scenario('default', 1), scenario('default')]);
    const KUBECONFIG = await mergedKubeconfig(prod, staging);
    const untouched = () => {
      expect(httpWrites(prod)).toBe(0);
      expect(httpWrites(staging)).toBe(0);
    };

    const before = requests(staging);
    const missing = await karpDrift(prod, ['upgrade', '--to', '1.30', '--from-context', 'stagin', '--yes'], 60_000, {
      KUBECONFIG,
    });
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain(
      `error: --from-context stagin: no context "stagin" in ${KUBECONFIG}; its contexts: prod, staging; nothing was changed\n  next: pass one of those contexts with --from-context, or the kubeconfig that has stagin with --from-kubeconfig`,
    );
    expect(requests(staging)).toBe(before);
    untouched();

    // Staging still runs the 1.29 AMIs; read through its own kubeconfig file (its current-context).
    const minor = await karpDrift(prod, [
      'upgrade',
      '--to',
      '1.30',
      '--from-kubeconfig',
      staging.kubeconfigPath,
      '--yes',
    ]);
    expect(minor.code, minor.stderr).toBe(3);
    expect(minor.stderr).toContain(
      `error: source context karp-drift-sandbox-default (${staging.kube.url}) runs Kubernetes 1.29 AMIs, not 1.30 (--to), for what this plan pins (`,
    );
    expect(minor.stderr).toMatch(/for what this plan pins \((al2023|bottlerocket) [^)]*\); nothing was changed\n/);
    // The evidence: each image, the NodeClaims that run it (three, then how many more) and their class.
    expect(minor.stderr).toMatch(
      /\n {2}ami-\w+ \(amazon-eks-node-al2023-arm64-standard-1\.29-v\d{8}\) on nodeclaim\/arm-\w+, nodeclaim\/[\w-]+, nodeclaim\/[\w-]+, \d+ more \(ec2nodeclass\/default\)\n/,
    );
    expect(minor.stderr).toMatch(
      /\n {2}ami-\w+ \(bottlerocket-aws-k8s-1\.29-x86_64-v[\w.-]+\) on nodeclaim\/system-\w+.* \(ec2nodeclass\/bottlerocket\)\n/,
    );
    expect(minor.stderr).toContain(
      'next: pass --to 1.29 to promote what karp-drift-sandbox-default runs, or upgrade karp-drift-sandbox-default to 1.30 first (karp-drift upgrade --to 1.30 --context karp-drift-sandbox-default)',
    );
    untouched();

    const started = await karpDrift(staging, ['upgrade', '--to', '1.30', '--yes', '--no-wait']);
    expect(started.code, started.stderr).toBe(0);
    const stagingWrites = httpWrites(staging);
    const mid = await karpDrift(prod, ['upgrade', '--to', '1.30', '--from-context', 'staging', '--yes'], 60_000, {
      KUBECONFIG,
    });
    expect(mid.code, mid.stderr).toBe(3);
    expect(mid.stderr).toContain(
      `error: source context staging (${staging.kube.url}) is mid-rollout: its nodes do not all run what its EC2NodeClasses pin, so it has no one tested state to promote; nothing was changed`,
    );
    // Karpenter has resolved the new terms (its nodes then run images status.amis no longer lists) or not yet.
    expect(mid.stderr).toMatch(
      /\n {2}(nodeclaim\/[\w-]+ runs ami-\w+, which status\.amis of ec2nodeclass\/\w+ does not list \(AMIDrift\)|nodeclaim\/[\w-]+ \(ec2nodeclass\/\w+, ami-\w+\) is Drifted \(AMIDrift\)|ec2nodeclass\/\w+: AMIsReady has observed generation)/,
    );
    expect(mid.stderr).toContain(
      'next: let the rollout there finish (karp-drift wait --context staging), then promote',
    );
    expect(httpWrites(prod)).toBe(0);
    expect(httpWrites(staging)).toBe(stagingWrites);
  });
});
