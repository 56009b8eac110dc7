// A canary that tests nothing (gates/coverage.ts), end to end on the `bad-ami` sandbox with a good release: drift
// deletes an empty node without a replacement, so a canary of empty nodes is refused by the plan (CANARY-EMPTY,
// exit 3, nothing changed), and a canary emptied after the plan does not pass its gate (STAGE-UNTESTED, exit 6);
// nor does a replacement that runs DaemonSet pods alone, at a stage's end or at the end of the default `1/ami` wave.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import { httpWrites, karpDrift } from './cli-sandbox.js';
import { CANARY, GOOD, claims, findingsOf, gates, nodePools, startedIn } from './gates.js';

/** The bad-ami cluster with the canary's only workload gone (`edge`): its nodes run DaemonSet pods alone. */
async function emptyCanary(): Promise<Sandbox> {
  const scenario = loadScenario('bad-ami');
  scenario.workloads = scenario.workloads.filter((w) => w.name !== 'edge');
  const sandbox = await startSandbox({ scenario });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

const edgePods = (sandbox: Sandbox) =>
  sandbox.kube.store.list('pods').filter((p) => p.metadata.namespace === 'shop' && p.metadata.name?.startsWith('edge-'));

describe('a canary that tests nothing (bad-ami sandbox, good release)', () => {
  it('a canary of empty nodes: plan reports CANARY-EMPTY with its reason, upgrade refuses it (exit 3), nothing changed', async () => {
    const sandbox = await emptyCanary();
    const planned = await karpDrift(sandbox, ['plan', '--to', '1.30', '--release', GOOD, '--canary', 'canary', '-o', 'json']);
    expect(planned.code, planned.stderr).toBe(3);
    const doc = JSON.parse(planned.stdout) as {
      checks: Array<{ code: string; level: string; message: string; evidence: string[]; next: string }>;
      staged: { stages: Array<{ name: string; amis: Array<{ nodePools: Array<{ oldNodes: number; emptyNodes: string[] }> }> }> };
    };
    const empty = doc.checks.filter((c) => c.code === 'CANARY-EMPTY');
    expect(empty).toHaveLength(1);
    expect(empty[0]).toMatchObject({ level: 'error', next: expect.stringContaining('--canary general') as string });
    expect(empty[0]!.message).toMatch(/^--canary canary: every old node of the canary is empty, so it can only delete them/);
    expect(empty[0]!.evidence.filter((e) => e.endsWith('no pod but DaemonSet and static pods'))).toHaveLength(3);
    expect(doc.staged.stages[0]!.amis[0]!.nodePools[0]).toMatchObject({ oldNodes: 3 });
    expect(doc.staged.stages[0]!.amis[0]!.nodePools[0]!.emptyNodes).toHaveLength(3);

    const writes = httpWrites(sandbox);
    const run = await karpDrift(sandbox, [...CANARY, '--release', GOOD]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('CANARY-EMPTY');
    expect(httpWrites(sandbox)).toBe(writes);
  });

  it('a canary emptied after the plan: its nodes deleted without replacements, the stage does not pass (STAGE-UNTESTED, exit 6)', async () => {
    const scenario = loadScenario('bad-ami');
    const sandbox = await startSandbox({ scenario });
    onTestFinished(() => sandbox.stop());
    expect(edgePods(sandbox)).toHaveLength(3);
    // The first hold is written after the plan read the pods, before the apply: the canary's pods go away then.
    const emptied = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (!sandbox.kube.requests.some((r) => r.resource === 'nodepools' && r.verb === 'patch')) return;
        for (const p of edgePods(sandbox)) sandbox.kube.store.delete('pods', p.metadata.name!, 'shop');
        clearInterval(timer);
        resolve();
      }, 5);
      onTestFinished(() => clearInterval(timer));
    });
    const run = await karpDrift(sandbox, [...CANARY, '--release', GOOD, '-o', 'json']);
    await emptied;
    expect(run.code, run.stderr).toBe(6);
    const halt = gates(run).at(-1)!;
    expect(halt).toMatchObject({ gate: 'health', point: 'wave-end', stage: 1, result: 'failed' });
    expect(findingsOf(halt).map((f) => f.code)).toEqual(['STAGE-UNTESTED']);
    expect(findingsOf(halt)[0]!.message).toMatch(/^stage 1 \(canary\) ends without a drift replacement on al2023 amd64 standard AMI ami-\w+ that runs a pod Ready \(not a DaemonSet's\)/);
    // Karpenter deleted the canary's empty nodes, replaced none, and never reached general; both are held.
    expect(startedIn(sandbox, 'canary').map((d) => d.replacements)).toEqual([[], [], []]);
    expect(startedIn(sandbox, 'general')).toEqual([]);
    for (const pool of ['canary', 'general']) expect(nodePools(sandbox)[pool]!.hold, pool).toBeDefined();
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate' });
  });
});

/** NodeClaims of `pool` that were not there at the start: the replacements Karpenter launched (nothing scales up here). */
function newClaims(sandbox: Sandbox, pool: string): () => string[] {
  const before = new Set(claims(sandbox, pool).map((c) => c.metadata.name));
  return () => claims(sandbox, pool).flatMap((c) => (before.has(c.metadata.name) ? [] : [c.metadata.name!]));
}

/** Non-DaemonSet pods on `node`: what a drain would move onto the replacement. */
const workloadPodsOn = (sandbox: Sandbox, node: string) =>
  sandbox.kube.store
    .list('pods')
    .filter((p) => (p.spec as { nodeName?: string }).nodeName === node && !p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet'));

/**
 * Once Karpenter has picked an old node of `pools` for drift (DisruptionReason, its replacement created in the same
 * command), its workload pods go away before the drain could move them: the replacement then runs DaemonSet pods alone.
 */
function emptyPicked(sandbox: Sandbox, pools: string[]): void {
  const done = new Set<string>();
  const timer = setInterval(() => {
    for (const c of sandbox.kube.store.list('nodeclaims.karpenter.sh')) {
      const status = c.status as { nodeName?: string; conditions?: Array<{ type: string; status: string }> } | undefined;
      const node = status?.nodeName;
      if (node === undefined || done.has(node) || !pools.includes(c.metadata.labels?.['karpenter.sh/nodepool'] ?? '')) continue;
      if (!status?.conditions?.some((x) => x.type === 'DisruptionReason' && x.status === 'True')) continue;
      done.add(node);
      for (const p of workloadPodsOn(sandbox, node)) sandbox.kube.store.delete('pods', p.metadata.name!, p.metadata.namespace);
    }
  }, 5);
  onTestFinished(() => clearInterval(timer));
}

describe('a replacement that runs DaemonSet pods alone tests nothing (bad-ami sandbox, good release)', () => {
  it("the canary's replacement gets no pod of the canary's workload: its stage ends untested (STAGE-UNTESTED, exit 6)", async () => {
    // One pod of `edge`, so one canary node to replace and two empty ones (deleted without a replacement): no other
    // canary node's pods can move onto the replacement later.
    const scenario = loadScenario('bad-ami');
    scenario.workloads = scenario.workloads.map((w) => (w.name === 'edge' ? { ...w, replicas: 1 } : w));
    const sandbox = await startSandbox({ scenario });
    onTestFinished(() => sandbox.stop());
    emptyPicked(sandbox, ['canary']);
    const replacements = newClaims(sandbox, 'canary');
    const run = await karpDrift(sandbox, [...CANARY, '--release', GOOD, '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);
    const halt = gates(run).at(-1)!;
    expect(halt).toMatchObject({ gate: 'health', stage: 1, result: 'failed' });
    const findings = findingsOf(halt);
    expect(findings.map((f) => f.code)).toEqual(['STAGE-UNTESTED']);
    expect(findings[0]!.message).toMatch(/^stage 1 \(canary\) ends without a drift replacement on al2023 amd64 standard AMI/);
    // Karpenter did replace the canary's node it picked while it ran a pod: Initialized, Ready, node-agent alone.
    expect(replacements()).toHaveLength(1);
    expect(findings[0]!.evidence).toEqual([
      'the plan: 3 old nodes of nodepool/canary move onto it, 2 of them empty then',
      expect.stringMatching(/^nodeclaim\/canary-\w+ \(node [^)]+\) in nodepool\/canary: a drift replacement, Initialized and Ready, that runs only DaemonSet pods \(1\)/),
    ]);
    expect(startedIn(sandbox, 'general')).toEqual([]);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate' });
  });

  it('the default rollout: a 1/ami replacement that gets no workload pod halts at the end of that wave, before the rest', async () => {
    const sandbox = await startSandbox({ scenario: loadScenario('bad-ami') });
    onTestFinished(() => sandbox.stop());
    emptyPicked(sandbox, ['canary', 'general']);
    const replacements = [newClaims(sandbox, 'canary'), newClaims(sandbox, 'general')];
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--release', GOOD, '-o', 'json']);
    expect(run.code, run.stderr).toBe(6);
    const halt = gates(run).at(-1)!;
    expect(halt).toMatchObject({ gate: 'health', point: 'wave-end', stage: 1, wave: 1, result: 'failed' });
    const findings = findingsOf(halt);
    expect(findings.map((f) => f.code)).toEqual(['STAGE-UNTESTED', 'STAGE-UNTESTED']);
    for (const f of findings) {
      expect(f.message).toMatch(/^stage 1 \(rollout\) wave 1 \(1\/ami\) ends without a drift replacement on al2023 (amd64|arm64) standard AMI/);
      expect(f.evidence.some((e) => e.includes('that runs only DaemonSet pods'))).toBe(true);
    }
    // One replacement per target AMI, and nothing of the rest started.
    expect(replacements.flatMap((r) => r())).toHaveLength(2);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate' });
  });
});
