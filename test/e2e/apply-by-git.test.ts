// GitOps end to end (issue 36): the sandbox's Argo CD or Flux stand-in syncs a directory of manifests, `pin` edits
// them, and `upgrade --apply-by git` holds, says what to merge, waits for the sync and paces the rollout it starts;
// a revert synced mid-rollout is reported as one; a bad AMI halts at the canary with every NodePool held, and
// `rollback` says what to revert and follows the nodes back once it is synced; windows that `pin --window` writes hold
// drift with no karp-drift running; `plan` names the Application or Kustomization, read only when RBAC lets it.
import { readFileSync, writeFileSync } from 'node:fs';
import { load as parseYaml } from 'js-yaml';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import type { Scenario } from '../../src/sandbox/scenarios/schema.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import { NODE_HOLD_ANNOTATION } from '../../src/karpenter/views.js';
import { userKubeconfig } from '../sandbox/kube-api-sandbox.js';
import { karpDrift, type CliRun } from './cli-sandbox.js';
import { follow } from './staged.js';

type Ev = CliRun['events'][number];
const CLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const POOLS = 'nodepools.karpenter.sh';
const SPEED = 300;

/** A built-in scenario whose classes (and the pools named) the GitOps tool applies, synced every 30 simulated s. */
function gitopsScenario(base: string, tool: 'argocd' | 'flux', pools: Record<string, Scenario['nodePools'][number]['budgets']> = {}): Scenario {
  const s = loadScenario(base);
  return {
    ...s,
    nodeClasses: s.nodeClasses.map((c) => ({ ...c, fieldManager: tool })),
    nodePools: s.nodePools.map((p) => (p.name in pools ? { ...p, fieldManager: tool, budgets: pools[p.name] } : { ...p, fieldManager: p.fieldManager === 'kubectl' ? 'kubectl' : tool })),
    gitops: { tool, intervalSeconds: 30 },
  };
}

async function started(scenario: Scenario): Promise<Sandbox & { gitops: NonNullable<Sandbox['gitops']> }> {
  const sandbox = await startSandbox({ scenario, speed: SPEED });
  onTestFinished(() => sandbox.stop());
  return sandbox as Sandbox & { gitops: NonNullable<Sandbox['gitops']> };
}

/** The directory's files as they are now, to put back (a `git revert`). */
async function snapshotFiles(dir: string): Promise<Map<string, string>> {
  return new Map((await readdir(dir)).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}
const restoreFiles = (dir: string, files: ReadonlyMap<string, string>) => {
  for (const [f, text] of files) writeFileSync(join(dir, f), text);
};

/** Runs the `pin` command the run printed, as a person would (a file:// repository is this machine's checkout). */
async function runPrintedPin(sandbox: Sandbox, waiting: Ev): Promise<void> {
  const classes = waiting.nodeClasses as Array<{ gitops?: { pin: string[] } }>;
  const command = classes.find((c) => c.gitops !== undefined)!.gitops!.pin[0]!;
  expect(command).toMatch(/^karp-drift pin --to 1\.30 \//);
  const pinned = await karpDrift(sandbox, command.split(' ').slice(1));
  expect(pinned.code, pinned.stderr).toBe(0);
}

const termsOf = (s: Sandbox, name: string) => (s.kube.store.get(CLASSES, name)!.spec as { amiSelectorTerms: unknown }).amiSelectorTerms;
const ownersOfTerms = (s: Sandbox, name: string) =>
  (s.kube.store.get(CLASSES, name)!.metadata.managedFields ?? [])
    .filter((m) => JSON.stringify(m.fieldsV1 ?? {}).includes('"f:amiSelectorTerms"'))
    .map((m) => m.manager);
const heldPools = (s: Sandbox) =>
  s.kube.store
    .list(POOLS)
    .filter((p) => p.metadata.annotations?.[HOLD_ANNOTATION] !== undefined || s.kube.store.list('nodes').some((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === p.metadata.name && n.metadata.annotations?.[NODE_HOLD_ANNOTATION] !== undefined))
    .map((p) => p.metadata.name)
    .sort();

describe('upgrade --apply-by git on the sandbox with its Argo CD stand-in', () => {
  it('holds, says what to merge, waits for the sync of the pinned files, then paces the waves and gates them', async () => {
    const sandbox = await started(gitopsScenario('gitops-owned', 'argocd'));
    const before = { default: termsOf(sandbox, 'default'), bottlerocket: termsOf(sandbox, 'bottlerocket') };
    const run = follow(sandbox, ['upgrade', '--to', '1.30', '--apply-by', 'git', '--canary', 'system', '--waves', '1,100%', '--yes', '-o', 'json']);
    const waiting = await run.until((e) => e.type === 'sync' && e.state === 'waiting');
    // The holds went on first, and nothing changed the classes or started drift while it waits.
    expect(run.events.findIndex((e) => e.type === 'hold')).toBeLessThan(run.events.indexOf(waiting));
    expect(run.events.some((e) => e.type === 'applied')).toBe(false);
    expect({ default: termsOf(sandbox, 'default'), bottlerocket: termsOf(sandbox, 'bottlerocket') }).toEqual(before);
    expect(waiting).toMatchObject({
      timeoutSeconds: 3600,
      nodeClasses: [
        { name: 'bottlerocket', appliedBy: 'Argo CD Application argocd/karpenter' },
        { name: 'default', appliedBy: 'Argo CD Application argocd/karpenter', gitops: { kind: 'Application', namespace: 'argocd', name: 'karpenter', sources: [{ repoURL: `file://${sandbox.gitops.dir}`, path: '.' }] } },
      ],
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(sandbox.simulator.disruptions.entries()).toEqual([]);

    await runPrintedPin(sandbox, waiting);
    expect(await run.exited, run.stderr()).toBe(0);
    const arrived = run.events.filter((e) => e.type === 'sync' && e.state === 'arrived');
    const revision = (sandbox.kube.store.get('applications.argoproj.io', 'karpenter', 'argocd')!.status as { sync: { revision: string } }).sync.revision;
    // Both arrive with one sync: in the order the watch saw them, which a loaded machine may swap.
    expect(arrived.map((e) => [e.nodeClass, e.revision]).sort()).toEqual([
      ['bottlerocket', revision],
      ['default', revision],
    ]);
    // Paced as any staged run: the canary stage first, in its waves, each checkpoint gated.
    expect(run.events.filter((e) => e.type === 'wave').map((e) => `${String(e.stage)}/${String(e.wave)}`)).toEqual(['1/1', '1/2', '2/1', '2/2']);
    expect(run.events.filter((e) => e.type === 'gate').every((e) => e.result === 'passed')).toBe(true);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
    // karp-drift never owned the terms; it recorded what rollback needs on the side.
    expect(ownersOfTerms(sandbox, 'default')).toEqual(['argocd-controller']);
    expect(sandbox.kube.store.get(CLASSES, 'default')!.metadata.annotations).toMatchObject({
      'karp-drift.io/applied-by': 'git',
      'karp-drift.io/synced-revision': revision,
      'karp-drift.io/previous-ami-selector-terms': JSON.stringify(before.default),
    });
    expect(heldPools(sandbox)).toEqual([]);
  });

  it('reports a revert synced mid-rollout as one and leaves the rollout held; rollback then follows the nodes back', async () => {
    const sandbox = await started(gitopsScenario('gitops-owned', 'argocd'));
    const original = await snapshotFiles(sandbox.gitops.dir);
    const run = follow(sandbox, ['upgrade', '--to', '1.30', '--apply-by', 'git', '--canary', 'system', '--waves', '1,100%', '--soak', '30s', '--yes', '-o', 'json']);
    await runPrintedPin(sandbox, await run.until((e) => e.type === 'sync' && e.state === 'waiting'));
    await run.until((e) => e.type === 'soak', 60_000);
    restoreFiles(sandbox.gitops.dir, original);
    expect(await run.exited, run.stderr()).toBe(3);
    expect(run.events.filter((e) => e.type === 'sync' && e.state === 'reverted').map((e) => e.nodeClass).sort()).toEqual(['bottlerocket', 'default']);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'paused', cause: 'sync', paused: ['system', 'general'] });
    expect(run.stderr()).toContain(
      'error: Argo CD Application argocd/karpenter put the terms from before the upgrade back on ec2nodeclass/bottlerocket, ec2nodeclass/default (a revert or a sync rollback): not a stall',
    );
    expect(heldPools(sandbox)).toEqual(['general', 'system']);

    const back = await karpDrift(sandbox, ['rollback', '--yes', '-o', 'json'], 90_000);
    expect(back.code, back.stderr).toBe(0);
    expect(heldPools(sandbox)).toEqual([]);
    expect(sandbox.kube.store.get(CLASSES, 'bottlerocket')!.metadata.annotations?.['karp-drift.io/applied-by']).toBeUndefined();
    expect(ownersOfTerms(sandbox, 'bottlerocket')).toEqual(['argocd-controller']);
  });

  it('bad-ami: halts at the canary with every NodePool held; rollback says what to revert and follows the nodes back once it is synced', async () => {
    const sandbox = await started(gitopsScenario('bad-ami', 'argocd'));
    const original = await snapshotFiles(sandbox.gitops.dir);
    const before = termsOf(sandbox, 'default');
    const run = follow(sandbox, ['upgrade', '--to', '1.30', '--apply-by', 'git', '--canary', 'canary', '--waves', '1,100%', '--yes', '-o', 'json']);
    await runPrintedPin(sandbox, await run.until((e) => e.type === 'sync' && e.state === 'waiting'));
    expect(await run.exited, run.stderr()).toBe(6);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate', paused: ['canary', 'general'] });
    expect(heldPools(sandbox)).toEqual(['canary', 'general']);
    const revision = sandbox.kube.store.get(CLASSES, 'default')!.metadata.annotations?.['karp-drift.io/synced-revision'];
    expect(revision).toMatch(/^[0-9a-f]{40}$/);

    const back = follow(sandbox, ['rollback', '--yes', '-o', 'json']);
    const waiting = await back.until((e) => e.type === 'sync' && e.state === 'waiting');
    expect(waiting).toMatchObject({ revert: true, nodeClasses: [{ name: 'default', appliedBy: 'Argo CD Application karpenter', revision, planned: { amiSelectorTerms: before } }] });
    // Nothing restored by karp-drift: the class keeps the bad AMIs until Git reverts them.
    await new Promise((r) => setTimeout(r, 500));
    expect(termsOf(sandbox, 'default')).not.toEqual(before);
    restoreFiles(sandbox.gitops.dir, original);
    expect(await back.exited, back.stderr()).toBe(0);
    expect(termsOf(sandbox, 'default')).toEqual(before);
    expect(heldPools(sandbox)).toEqual([]);
    expect(Object.keys(sandbox.kube.store.get(CLASSES, 'default')!.metadata.annotations ?? {}).filter((k) => k.startsWith('karp-drift.io/'))).toEqual([]);
    expect(ownersOfTerms(sandbox, 'default')).toEqual(['argocd-controller']);
  });
});

describe('GitOps without karp-drift running: Flux syncs the windows pin --window wrote', () => {
  it('plan names the Kustomization and its GitRepository when RBAC lets it read them; drift waits outside the window', async () => {
    const sandbox = await started(gitopsScenario('gitops-owned', 'flux', { general: [{ nodes: '100%' }] }));
    // plan as a user bound to karp-drift-readonly alone: the Kustomization is not read, said so, and the plan works.
    const tester = { name: 'gitops-tester', groups: ['testers'] };
    const bind = (role: string) => {
      const rbac = readFileSync(new URL(`../../deploy/${role === 'karp-drift-gitops-reader' ? 'rbac-gitops' : 'rbac'}.yaml`, import.meta.url), 'utf8');
      for (const doc of rbac.split(/^---$/m)) if (doc.includes(`name: ${role}\n`)) sandbox.kube.store.create('clusterroles.rbac.authorization.k8s.io', parseYaml(doc) as KubeObject);
      sandbox.kube.store.create('clusterrolebindings.rbac.authorization.k8s.io', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'testers' }],
      });
    };
    bind('karp-drift-readonly');
    const { kubeconfigPath } = await userKubeconfig(sandbox.kube, tester, join(sandbox.env.KUBECONFIG!.replace(/[^/]+$/, ''), 'tester'));
    const asTester = { KUBECONFIG: kubeconfigPath };
    const unread = await karpDrift(sandbox, ['plan', '--to', '1.30', '--nodeclass', 'default', '--apply-by', 'git'], 60_000, asTester);
    expect(unread.code, unread.stderr).toBe(0);
    expect(unread.stdout).toContain(
      'source: Flux Kustomization flux-system/karpenter (its source was not read: kustomizations.kustomize.toolkit.fluxcd.io "karpenter" is forbidden: User "gitops-tester" cannot get resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" in the namespace "flux-system" (the optional ClusterRole karp-drift-gitops-reader of deploy/rbac-gitops.yaml grants it))',
    );
    bind('karp-drift-gitops-reader');
    const read = await karpDrift(sandbox, ['plan', '--to', '1.30', '--nodeclass', 'default', '-o', 'json'], 60_000, asTester);
    expect(read.code).toBe(3); // FIELD-OWNER-GITOPS without --apply-by git
    const planned = JSON.parse(read.stdout) as { nodeClasses: Array<{ name: string; gitops: unknown }> };
    expect(planned.nodeClasses.find((c) => c.name === 'default')!.gitops).toEqual({
      tool: 'Flux',
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'karpenter',
      trackedBy: 'labels kustomize.toolkit.fluxcd.io/name and kustomize.toolkit.fluxcd.io/namespace',
      sources: [{ repoURL: 'https://git.sandbox.invalid/fleet-infra.git', ref: 'main' }],
      revision: `main@sha1:${sandbox.gitops.syncs.at(-1)!.revision}`,
      status: 'Ready',
      pin: ['karp-drift pin --to 1.30 .   (in a checkout of https://git.sandbox.invalid/fleet-infra.git at main)'],
    });

    // The AMIs and a window that opens in 12 hours, written into the files; Flux syncs them; nothing of karp-drift runs.
    const window = `0 ${(new Date().getUTCHours() + 12) % 24} * * */1h`;
    const pinned = await karpDrift(sandbox, ['pin', '--to', '1.30', '--window', window, sandbox.gitops.dir]);
    expect(pinned.code, pinned.stderr).toBe(0);
    sandbox.gitops.sync();
    const general = sandbox.kube.store.get(POOLS, 'general')!;
    const budgets = (general.spec as { disruption: { budgets: Array<Record<string, unknown>> } }).disruption.budgets;
    expect(budgets[0]).toEqual({ nodes: '100%' });
    expect(budgets.slice(1).every((b) => b.nodes === '0' && JSON.stringify(b.reasons) === '["Drifted"]' && typeof b.schedule === 'string')).toBe(true);
    const drifted = () => sandbox.kube.store.list('nodeclaims.karpenter.sh').filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === 'general' && (c.status as { conditions?: Array<{ type: string; status: string }> }).conditions?.some((x) => x.type === 'Drifted' && x.status === 'True'));
    for (let i = 0; i < 100 && drifted().length < 4; i++) await new Promise((r) => setTimeout(r, 100));
    expect(drifted()).toHaveLength(4);
    // Twenty simulated minutes later: Karpenter has started nothing in the closed window.
    await new Promise((r) => setTimeout(r, (20 * 60 * 1000) / SPEED));
    expect(sandbox.simulator.disruptions.entries().filter((d) => d.nodePool === 'general')).toEqual([]);
    expect(drifted()).toHaveLength(4);
  });
});
