// The built-in health gates over recorded states: what fails, what is still pending, and what the baseline excuses.
import { describe, expect, it } from 'vitest';
import { takeBaseline, type GateScope } from '../../src/gates/baseline.js';
import { evaluateHealth } from '../../src/gates/health.js';
import { DEFAULT_GATES } from '../../src/gates/request.js';
import { tallyEvaluation, INCONCLUSIVE_AFTER_MS, type EvaluationResult } from '../../src/gates/tally.js';
import type { NodeClaimView, NodeView, PdbView, PodView } from '../../src/karpenter/views.js';
import { at, iso, nodeClaim, nodeFor, nodePool, pdb, pod } from '../rollout/factories.js';

const scope: GateScope = { nodePools: ['general'], targetImageIds: { default: ['ami-new'] } };
const old = nodeClaim({ name: 'general-old1' });
const fresh = (o: Partial<NodeClaimView> & { phase?: 'launched' | 'registered' | 'initialized'; launchedAt?: Date } = {}) =>
  nodeClaim({ name: 'general-new1', imageId: 'ami-new', createdAt: iso(at(0)), ...o });
const baselineOf = (
  o: { pods?: PodView[]; pdbs?: PdbView[]; claims?: NodeClaimView[]; pools?: ReturnType<typeof nodePool>[] } = {},
) =>
  takeBaseline(
    {
      nodeClaims: o.claims ?? [old],
      nodes: (o.claims ?? [old]).map((c) => nodeFor(c)),
      pods: o.pods ?? [],
      pdbs: o.pdbs ?? [],
      nodePools: o.pools ?? [nodePool()],
    },
    scope,
    at(0),
  );
const evaluate = (
  claims: NodeClaimView[],
  nodes: NodeView[],
  o: {
    pods?: PodView[];
    pdbs?: PdbView[];
    pools?: ReturnType<typeof nodePool>[];
    minutes?: number;
    baseline?: ReturnType<typeof baselineOf>;
  } = {},
) =>
  evaluateHealth(
    {
      nodeClaims: claims,
      nodes: new Map(nodes.map((n) => [n.name, n])),
      pods: o.pods ?? [],
      pdbs: o.pdbs ?? [],
      nodePools: o.pools ?? [nodePool()],
    },
    scope,
    o.baseline ?? baselineOf(),
    DEFAULT_GATES,
    at(o.minutes ?? 1),
  );

/** A replacement whose launch keeps failing with the AWS provider's reason (ToReasonMessage) on Launched=Unknown. */
const launching = (reason: string, message: string) =>
  nodeClaim({
    name: 'general-new1',
    phase: 'created',
    createdAt: iso(at(0)),
    conditions: { Launched: { status: 'Unknown', reason, message, lastTransitionTime: iso(at(0)) } },
  });

const crashing: Partial<PodView> = {
  notReady: true,
  restarts: 5,
  waiting: {
    container: 'app',
    reason: 'CrashLoopBackOff',
    message: 'back-off 40s restarting failed container=app',
    lastExit: 'exit code 139 (Error)',
  },
};

describe('replacements come up', () => {
  const claim = fresh();
  const n = nodeFor(claim);
  it.each<[string, NodeClaimView[], NodeView[], number, string, string[]]>([
    ['a replacement Initialized and Ready passes', [old, claim], [n], 1, 'passed', []],
    ['not registered yet, within --init-deadline: pending', [fresh({ phase: 'launched' })], [], 5, 'pending', []],
    [
      'not registered past --init-deadline fails',
      [fresh({ phase: 'launched' })],
      [],
      16,
      'failed',
      ['REPLACEMENT-NOT-INITIALIZED'],
    ],
    [
      "Initialized, then NotReady: fails with the kubelet's words",
      [claim],
      [
        {
          ...n,
          ready: false,
          notReady: { status: 'False', reason: 'KubeletNotReady', message: 'cni plugin not initialized' },
        },
      ],
      2,
      'failed',
      ['NODE-NOT-READY'],
    ],
    ["an old node NotReady is not the new AMI's", [old], [{ ...nodeFor(old), ready: false }], 2, 'passed', []],
    [
      'a launch refused for capacity (Launched=Unknown SpotQuotaExceeded) past --init-deadline: pending, not the AMI’s',
      [launching('SpotQuotaExceeded', 'A spot instance launch was requested but this would exceed your spot instance quota')],
      [],
      11,
      'pending',
      [],
    ],
    [
      'a launch failing for the image (Launched=Unknown LaunchFailed) past --init-deadline fails',
      [launching('LaunchFailed', 'Instance launch failed')],
      [],
      11,
      'failed',
      ['REPLACEMENT-NOT-INITIALIZED'],
    ],
    [
      'a replacement on its way out is not judged',
      [fresh({ phase: 'launched', deleting: true })],
      [],
      30,
      'passed',
      [],
    ],
  ])('%s', (_name, claims, nodes, minutes, result, codes) => {
    const v = evaluate(claims, nodes, { minutes });
    expect(v.result).toBe(result);
    expect(v.findings.map((f) => f.code)).toEqual(codes);
  });

  it('a launch refused for capacity waits with Karpenter’s reason, even past a short --init-deadline', () => {
    const quota = launching('VCPULimitExceeded', 'An instance was requested that would exceed your VCPU quota');
    const v = evaluateHealth(
      { nodeClaims: [quota], nodes: new Map(), pods: [], pdbs: [], nodePools: [nodePool()] },
      scope,
      baselineOf(),
      { ...DEFAULT_GATES, initDeadlineMs: 3 * 60_000 },
      at(4),
    );
    expect(v).toMatchObject({ result: 'pending', findings: [] });
    expect(v.pending).toEqual([
      'nodeclaim/general-new1: Launched=Unknown VCPULimitExceeded: An instance was requested that would exceed your VCPU quota, refused for capacity (Karpenter deletes it 5m after its creation)',
    ]);
  });

  it("NodeRegistrationHealthy=False is Karpenter's word quoted beside a replacement's failure, never a failure by itself", () => {
    const failing = nodePool({
      conditions: {
        NodeRegistrationHealthy: {
          status: 'False',
          reason: 'RegistrationFailed',
          message: 'Failed to register node',
          lastTransitionTime: iso(at(3)),
        },
      },
    });
    // It needs 2 failed of the last 4 launches and every budget hold resets it (DOMAIN.md §1.3): nothing waits on it.
    expect(evaluate([old], [nodeFor(old)], { pools: [failing] })).toMatchObject({ result: 'passed', findings: [] });
    const late = evaluate([old, fresh({ phase: 'launched' })], [nodeFor(old)], { pools: [failing], minutes: 11 });
    expect(late.findings.map((f) => f.code)).toEqual(['REPLACEMENT-NOT-INITIALIZED']);
    expect(late.findings[0]!.evidence.at(-1)).toBe(
      'NodePool general: NodeRegistrationHealthy=False RegistrationFailed: Failed to register node (since 2025-08-20T14:03:00Z)',
    );
    const before = baselineOf({ pools: [failing] });
    const already = evaluate([old, fresh({ phase: 'launched' })], [nodeFor(old)], {
      pools: [failing],
      minutes: 11,
      baseline: before,
    });
    expect(already.findings[0]!.evidence.at(-1)).toContain('(since 2025-08-20T14:03:00Z, before the rollout)');
  });

  it('--init-deadline counts from the NodeClaim’s creation and defaults to the drift queue’s 10 minutes', () => {
    const launchedLate = fresh({ phase: 'launched', launchedAt: at(8) });
    expect(evaluate([launchedLate], [], { minutes: 9 }).result).toBe('pending');
    expect(evaluate([launchedLate], [], { minutes: 10 }).findings[0]!.message).toBe(
      'replacement nodeclaim/general-new1 (NodePool general, AMI ami-new) is not Initialized 10m after it was created (--init-deadline 10m)',
    );
  });
});

describe('workloads stay healthy', () => {
  const claim = fresh();
  const n = nodeFor(claim);
  const on = (o: Partial<PodView>) =>
    pod({ nodeName: n.name, owner: 'ReplicaSet/ledger-7d9', createdAt: iso(at(0)), ready: true, ...o });
  it.each<[string, PodView[], number, string, string[]]>([
    ['Ready pods pass', [on({})], 1, 'passed', []],
    ['CrashLoopBackOff fails at once', [on(crashing)], 1, 'failed', ['POD-FAILING']],
    [
      'ImagePullBackOff fails',
      [on({ ready: false, waiting: { container: 'app', reason: 'ImagePullBackOff' } })],
      1,
      'failed',
      ['POD-FAILING'],
    ],
    ['more restarts than --max-restarts fail', [on({ restarts: 4 })], 1, 'failed', ['POD-RESTARTING']],
    ['restarts up to --max-restarts pass', [on({ restarts: 3 })], 1, 'passed', []],
    ['not Ready within --pod-ready-deadline: pending', [on({ ready: undefined })], 2, 'pending', []],
    ['not Ready past --pod-ready-deadline fails', [on({ ready: undefined })], 6, 'failed', ['POD-NOT-READY']],
    ['a pod on an old node is not judged', [pod({ nodeName: nodeFor(old).name, ...crashing })], 1, 'passed', []],
    ['a completed pod is not judged', [on({ phase: 'Succeeded', ready: undefined })], 9, 'passed', []],
  ])('%s', (_name, pods, minutes, result, codes) => {
    const v = evaluate([old, claim], [n], { pods, minutes });
    expect(v.result).toBe(result);
    expect(v.findings.map((f) => f.code)).toEqual(codes);
  });

  it('a workload already crash-looping on the old AMI is excused; one failing only on the new AMI is not', () => {
    const before = baselineOf({
      pods: [pod({ nodeName: nodeFor(old).name, owner: 'ReplicaSet/ledger-7d9', ...crashing })],
    });
    expect(evaluate([old, claim], [n], { pods: [on(crashing)], baseline: before }).result).toBe('passed');
    // Failing at the baseline on a node already on the target AMI (a re-run after a halt) excuses nothing.
    const rerun = baselineOf({ claims: [old, claim], pods: [on(crashing)] });
    expect(evaluate([old, claim], [n], { pods: [on(crashing)], baseline: rerun }).result).toBe('failed');
  });

  it("the evidence is the kubelet's: waiting reason and message, last exit, restarts, owner", () => {
    const [f] = evaluate([old, claim], [n], { pods: [on(crashing)] }).findings;
    expect(f!.evidence).toEqual([
      'container app: CrashLoopBackOff: back-off 40s restarting failed container=app',
      'last termination: exit code 139 (Error)',
      '5 restarts',
      'owner ReplicaSet/ledger-7d9',
    ]);
    expect(f).toMatchObject({ nodePool: 'general', node: n.name, ami: 'ami-new', subject: 'pod/payments/ledger-0' });
  });

  it('a PDB below desiredHealthy fails only when it was healthy at the baseline', () => {
    const scoped = pod({ nodeName: nodeFor(old).name });
    const healthy = pdb({ currentHealthy: 2, desiredHealthy: 2 });
    const below = pdb({ currentHealthy: 1, desiredHealthy: 2 });
    const wasHealthy = baselineOf({ pods: [scoped], pdbs: [healthy] });
    expect(
      evaluate([old, claim], [n], { pdbs: [below], pods: [scoped], baseline: wasHealthy }).findings.map((f) => f.code),
    ).toEqual(['PDB-BELOW-DESIRED']);
    const wasBelow = baselineOf({ pods: [scoped], pdbs: [below] });
    expect(evaluate([old, claim], [n], { pdbs: [below], pods: [scoped], baseline: wasBelow }).result).toBe('passed');
  });
});

describe('counting evaluations (--failure-limit, inconclusive)', () => {
  const run = (
    results: EvaluationResult[],
    limit: number,
    source: 'health' | 'command' = 'health',
    stepMs = 10_000,
  ) => {
    let tally = { failures: 0 } as Parameters<typeof tallyEvaluation>[0];
    for (const [i, r] of results.entries()) {
      const out = tallyEvaluation(tally, r, limit, new Date(at(0).getTime() + i * stepMs), source);
      tally = out.tally;
      if (out.halt) return `${out.halt} at ${i + 1}`;
    }
    return 'goes on';
  };
  it.each<[string, EvaluationResult[], number, 'health' | 'command', string]>([
    ['one failure halts with the default limit', ['passed', 'failed'], 1, 'health', 'failed at 2'],
    [
      'a flapping node counts each failed look, consecutive or not',
      ['failed', 'passed', 'failed', 'passed', 'failed'],
      3,
      'health',
      'failed at 5',
    ],
    ['below the limit it goes on', ['failed', 'passed', 'failed'], 3, 'health', 'goes on'],
    ['pending never counts', ['pending', 'pending', 'pending'], 1, 'health', 'goes on'],
    [
      'unreadable reads: tried again, then inconclusive',
      Array<EvaluationResult>(8).fill('inconclusive'),
      1,
      'health',
      `inconclusive at ${INCONCLUSIVE_AFTER_MS / 10_000 + 1}`,
    ],
    [
      'a read that recovers resets the inconclusive clock',
      ['inconclusive', 'inconclusive', 'passed', 'inconclusive', 'inconclusive'],
      1,
      'health',
      'goes on',
    ],
    ['a command that timed out is inconclusive at once', ['inconclusive'], 5, 'command', 'inconclusive at 1'],
  ])('%s', (_name, results, limit, source, expected) => {
    expect(run(results, limit, source)).toBe(expected);
  });
});

describe('baseline', () => {
  it("records the healthy PDBs covering pods on the scope's nodes only", () => {
    const b = baselineOf({
      pods: [pod({ nodeName: nodeFor(old).name })],
      pdbs: [
        pdb({ currentHealthy: 1, desiredHealthy: 1 }),
        pdb({ name: 'other', selector: { matchLabels: { app: 'other' } } }),
      ],
    });
    expect([...b.healthyPdbs]).toEqual(['payments/ledger']);
  });
});
