// A staged rollback planned as a staged upgrade is, with the nodes that go back as its old nodes: its stages and their
// refusals, which nodes go back before and after the restore, the rollback a halt starts (--rollback-waves), and the
// command that goes on where it stops.
import { describe, expect, it } from 'vitest';
import { HaltedError, RefusedError, UsageError } from '../../src/errors.js';
import { refuseHaltedRollback } from '../../src/commands/rollback-consent.js';
import { DEFAULT_GATES } from '../../src/gates/request.js';
import { nodesGoingBack } from '../../src/commands/rollback-plan.js';
import { selects } from '../../src/commands/rollback-restore.js';
import {
  holdsOf,
  notOnTargets,
  restoredPlan,
  rollbackHaltHint,
  rollbackRequest,
  rollbackResume,
  rollbackStages,
} from '../../src/commands/rollback-stages.js';
import { parseWaves } from '../../src/stages/waves.js';
import type { StagedRequest } from '../../src/stages/request.js';
import { inventory, NEW, nodeClaim, nodeClass, nodePool, OLD } from '../plan/factories.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const waves = (text: string) => {
  const parsed = parseWaves(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.steps;
};
const request = (o: Partial<StagedRequest> = {}): StagedRequest => ({ canary: [], waves: waves('1,100%'), soakMs: 0, holdWith: 'auto', gates: DEFAULT_GATES, ...o });

// After a canary halted: the class pins NEW (status.amis), canary's two nodes run it, general's three never left OLD.
const pinnedNew = nodeClass({ statusAmis: [{ id: NEW['amd64/standard'], requirements: [] }] });
const halted = inventory({
  nodeClasses: [pinnedNew],
  nodePools: [nodePool({ name: 'canary' }), nodePool()],
  nodeClaims: [
    nodeClaim({ name: 'canary-1', nodePool: 'canary', imageId: NEW['amd64/standard'] }),
    nodeClaim({ name: 'canary-2', nodePool: 'canary', imageId: NEW['amd64/standard'] }),
    nodeClaim({ name: 'canary-3', nodePool: 'canary', imageId: undefined }), // launching, from NEW
    nodeClaim({ name: 'general-1' }),
    nodeClaim({ name: 'general-2' }),
    nodeClaim({ name: 'general-3', imageId: NEW['amd64/standard'], deleting: true }),
  ],
});
const restore = (restored: boolean) => ({ view: pinnedNew, terms: [{ id: OLD['amd64/standard'] }], restored });

describe('the nodes that go back', () => {
  it.each<[string, boolean, Record<string, number>]>([
    // Before the restore: the nodes on the AMIs pinned now (a launching one has no AMI yet: the stages count it as a
    // replacement, as the controller does), never the ones that never left the previous AMIs, nor one being deleted.
    ['before the restore: those on the AMIs pinned now', false, { canary: 2, general: 0 }],
    // Restored (a staged rollback under way): status.amis are the previous AMIs; whatever else a node runs goes back.
    ['once restored: those not on the restored AMIs', true, { canary: 0, general: 2 }],
  ])('%s', (_name, restored, expected) => {
    const going = nodesGoingBack(halted, { pools: halted.nodePools, restores: [restore(restored)] });
    expect(Object.fromEntries(going)).toEqual(expected);
  });

  it('after Karpenter resolved the restored selection: those not on its AMIs, per NodePool', () => {
    expect(Object.fromEntries(notOnTargets(halted, halted.nodePools, { default: [OLD['amd64/standard']] }))).toEqual({ canary: 2, general: 0 });
    expect(Object.fromEntries(notOnTargets(halted, halted.nodePools, {}))).toEqual({ canary: 2, general: 2 });
  });
});

describe('rollbackStages', () => {
  const pools = halted.nodePools;
  const back = new Map([['canary', 2], ['general', 0]]);

  it('plans the stages of what goes back as an upgrade plans its old nodes', () => {
    const plan = rollbackStages(halted, pools, back, request({ waves: waves('1,100%'), soakMs: 60_000 }), NOW);
    expect(plan.stages.map((s) => ({ name: s.name, size: s.size, targets: s.targets }))).toEqual([{ name: 'rollout', size: 2, targets: [1, 2] }]);
    expect(plan.stages[0]!.nodePools.map((p) => [p.name, p.oldNodes, p.waves, p.hold.mechanism])).toEqual([
      ['canary', 2, [1, 2], 'budget'],
      ['general', 0, [0, 0], 'budget'],
    ]);
    expect(plan).toMatchObject({ soakMs: 60_000, gates: DEFAULT_GATES, stagePlan: { stages: [{ name: 'rollout', nodePools: ['canary', 'general'] }] } });
  });

  it('--canary: the canary goes back first', () => {
    const plan = rollbackStages(halted, pools, back, request({ canary: ['general'] }), NOW);
    expect(plan.stages.map((s) => [s.name, s.size])).toEqual([['canary', 0], ['rollout', 2]]);
  });

  it("takes a halted upgrade's holds as they were", () => {
    const node = { nodePool: 'general', mechanism: 'node' as const, why: 'as the upgrade held it' };
    const plan = rollbackStages(halted, pools, back, request(), NOW, new Map([['general', node]]));
    expect(plan.stages[0]!.nodePools.map((p) => p.hold.mechanism)).toEqual(['budget', 'node']);
  });

  it('a canary out of scope is a usage error in the words of a rollback', () => {
    let err: unknown;
    try {
      rollbackStages(halted, pools, back, request({ canary: ['batch'] }), NOW);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('--canary "batch": not a NodePool of the EC2NodeClasses in scope');
    expect((err as UsageError).hint).toBe('NodePools in scope: canary, general (a canary must use one of the EC2NodeClasses being rolled back)');
  });

  it('a hold that cannot work is refused (exit 3), nothing changed', () => {
    const argo = nodePool({ name: 'general', budgetOwners: [{ manager: 'argocd-controller', operation: 'Apply' }] });
    expect(() => rollbackStages(halted, [argo], back, request({ holdWith: 'budget' }), NOW)).toThrow(RefusedError);
    expect(() => rollbackStages(halted, [argo], back, request({ holdWith: 'budget' }), NOW)).toThrow(/; nothing was changed$/);
  });
});

describe('the rollback of a halt (--rollback-waves)', () => {
  it('one stage of the given waves, soaked and gated as the upgrade, and paused (never rolled back) when a gate halts it', () => {
    const upgrade = { soakMs: 900_000, gates: { ...DEFAULT_GATES, onFailure: 'rollback' as const, maxRestarts: 5 } };
    expect(rollbackRequest(upgrade, waves('1,100%'))).toEqual({
      canary: [],
      waves: waves('1,100%'),
      soakMs: 900_000,
      holdWith: 'auto',
      gates: { ...DEFAULT_GATES, maxRestarts: 5, onFailure: 'pause' },
    });
    expect(rollbackRequest({ soakMs: 0 }, waves('100%')).gates).toEqual(DEFAULT_GATES);
  });

  it("keeps each NodePool's hold as the upgrade chose it", () => {
    const plan = rollbackStages(halted, halted.nodePools, new Map(), request({ canary: ['canary'] }), NOW);
    expect(Object.fromEntries([...holdsOf(plan)].map(([p, h]) => [p, h.mechanism]))).toEqual({ canary: 'budget', general: 'budget' });
  });
});

describe('what a staged rollback follows, and says', () => {
  it('the restored AMIs are the targets of its classes', () => {
    expect(restoredPlan(['default'], { default: ['ami-1', 'ami-2'] }, [{ name: 'general', nodeClass: 'default' }])).toEqual({
      restored: true,
      nodeClasses: [{ name: 'default', targets: [{ id: 'ami-1' }, { id: 'ami-2' }] }],
      nodePools: [{ name: 'general', nodeClass: 'default' }],
    });
  });

  it.each<[string, Parameters<typeof rollbackResume>[1], Partial<StagedRequest>, string]>([
    ['everything by default', { nodeClasses: [] }, {}, 'karp-drift rollback --waves 1,100% --yes'],
    [
      'its classes, stages, gates, lock and context',
      { nodeClasses: ['default'], lockNamespace: 'ops', context: 'prod' },
      { canary: ['canary'], soakMs: 600_000, gates: { ...DEFAULT_GATES, maxRestarts: 5 } },
      'karp-drift rollback --nodeclass default --canary canary --waves 1,100% --soak 10m --max-restarts 5 --lock-namespace ops --context prod --yes',
    ],
    ['the default lock namespace is not repeated', { nodeClasses: [], lockNamespace: 'kube-system' }, {}, 'karp-drift rollback --waves 1,100% --yes'],
  ])('goes on with the same rollback: %s', (_name, scope, o, command) => {
    expect(rollbackResume(request(o), scope)).toBe(command);
  });

  it('a halt advises neither direction blindly', () => {
    expect(rollbackHaltHint('karp-drift rollback --waves 1,100% --yes')).toBe(
      "the previous AMIs failed the gates too: pin a release you trust (karp-drift plan/upgrade --to <minor> --release <release>), or, once you are sure they are fine, go on with the same rollback, which resumes at the wave where the cluster stands: karp-drift rollback --waves 1,100% --resume-halted --yes (karp-drift resume releases the holds and lets Karpenter take the rest back at the NodePools' own budgets)",
    );
  });
});

describe('selects: is a class already restored?', () => {
  const view = (terms: Array<Record<string, unknown>>, amiFamily?: string) =>
    nodeClass({ amiSelectorTerms: terms, ...(amiFamily ? { amiFamily } : {}) });
  it.each<[string, ReturnType<typeof view>, { terms: Array<Record<string, unknown>>; amiFamily?: string }, boolean]>([
    ['the same terms', view([{ id: 'ami-1' }, { id: 'ami-2' }], 'AL2023'), { terms: [{ id: 'ami-1' }, { id: 'ami-2' }], amiFamily: 'AL2023' }, true],
    ['in another order (terms are ORed)', view([{ id: 'ami-2' }, { id: 'ami-1' }]), { terms: [{ id: 'ami-1' }, { id: 'ami-2' }] }, true],
    ["a term's keys in another order", view([{ owner: 'amazon', name: 'x' }]), { terms: [{ name: 'x', owner: 'amazon' }] }, true],
    ['no family recorded: whatever the class has', view([{ id: 'ami-1' }], 'AL2023'), { terms: [{ id: 'ami-1' }] }, true],
    ['another family than recorded', view([{ id: 'ami-1' }], 'Bottlerocket'), { terms: [{ id: 'ami-1' }], amiFamily: 'AL2023' }, false],
    ['other terms: still to restore', view([{ id: 'ami-3' }]), { terms: [{ id: 'ami-1' }] }, false],
    ['fewer terms', view([{ id: 'ami-1' }]), { terms: [{ id: 'ami-1' }, { id: 'ami-2' }] }, false],
  ])('%s', (_name, v, r, expected) => {
    expect(selects(v, r as never)).toBe(expected);
  });
});

describe('refuseHaltedRollback: a rollback a gate halted goes on only with --resume-halted', () => {
  const gatePaused = nodePool({
    annotations: {
      'karp-drift.io/paused': JSON.stringify({ runId: 'r1', at: '2026-11-25T12:00:00Z', by: 'gate', why: 'a health gate stopped it: POD-FAILING …', gate: { code: 'POD-FAILING' } }),
    },
  });
  const interrupted = nodePool({
    annotations: { 'karp-drift.io/paused': JSON.stringify({ runId: 'r1', at: '2026-11-25T12:00:00Z', by: 'interrupted', why: 'the run was interrupted' }) },
  });
  const held = (pool: ReturnType<typeof nodePool>) => ({ pools: [pool], nodes: [] });
  it.each<[string, boolean, ReturnType<typeof nodePool>, { resumeHalted?: boolean; dryRun: boolean }, boolean]>([
    ['a rollback under way that a gate halted', true, gatePaused, { dryRun: false }, true],
    ['... with --resume-halted', true, gatePaused, { dryRun: false, resumeHalted: true }, false],
    ['... as a dry run, which changes nothing', true, gatePaused, { dryRun: true }, false],
    ['one an interrupt paused: the same rollback goes on (it asks as any re-run does)', true, interrupted, { dryRun: false }, false],
    ['the first rollback over an upgrade a gate halted: rolling back is the way on', false, gatePaused, { dryRun: false }, false],
  ])('%s', (_name, restored, pool, options, refused) => {
    const run = () => refuseHaltedRollback({ restores: [restore(restored)] }, held(pool), options, 'karp-drift rollback --waves 1,100%');
    if (!refused) return expect(run).not.toThrow();
    expect(run).toThrow(HaltedError);
    expect(run).toThrow(/^the rollback was halted by a health gate .*; running it again does not restart it, and nothing was changed$/);
  });
});
