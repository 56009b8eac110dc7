// Each stall code, in a cluster where it holds and in one where it must not fire. Twenty minutes into a rollout of
// NodePool "general" (EC2NodeClass "default": ami-old → ami-new) unless a case says otherwise.
import { describe, expect, it } from 'vitest';
import type {
  EventView,
  NodeClaimView,
  NodeClassView,
  NodePoolView,
  NodeView,
  PdbView,
  PodView,
} from '../../src/karpenter/views.js';
import { diagnose, type Blocker, type StallCode } from '../../src/rollout/stalls.js';
import { humanDuration } from '../../src/text/words.js';
import type { RolloutScope } from '../../src/rollout/track.js';
import {
  at,
  event,
  iso,
  members,
  nodeClaim,
  nodeClass,
  nodeFor,
  nodePool,
  pdb,
  pod,
  scope,
  snapshotOf,
} from './factories.js';
import type { RunLock } from '../../src/apis/hold-state.js';

interface World {
  claims?: NodeClaimView[];
  nodes?: NodeView[];
  nodeClasses?: NodeClassView[];
  events?: EventView[];
  nodePools?: NodePoolView[];
  pdbs?: PdbView[];
  pods?: PodView[];
  scope?: RolloutScope;
  karpenterApi?: 'v1' | 'v1beta1';
  lock?: RunLock;
}

function diagnosis(w: World, now = at(20)): Blocker[] {
  const claims = w.claims ?? [];
  const snapshot = snapshotOf({
    nodeClaims: claims,
    nodes: w.nodes ?? members(...claims).nodes,
    ...(w.nodeClasses ? { nodeClasses: w.nodeClasses } : {}),
    events: w.events ?? [],
  });
  return diagnose(
    snapshot,
    {
      scope: w.scope ?? scope(),
      nodePools: w.nodePools ?? [nodePool()],
      pdbs: w.pdbs ?? [],
      pods: w.pods ?? [],
      karpenterApi: w.karpenterApi ?? 'v1',
      ...(w.lock !== undefined ? { lock: w.lock } : {}),
    },
    now,
  );
}
const codes = (blockers: Blocker[]): StallCode[] => blockers.map((b) => b.code);
const only = (blockers: Blocker[], code: StallCode): Blocker[] => blockers.filter((b) => b.code === code);

const drifted = (name: string, o: Parameters<typeof nodeClaim>[0] = {}) => nodeClaim({ name, drifted: true, ...o });
const old1 = drifted('general-old01');
const old2 = drifted('general-old02');

describe('STALL-HELD', () => {
  const record = JSON.stringify({ runId: 'run-7', since: '2025-08-20T08:50:00Z', budgets: [{ nodes: '50%' }] });
  const held = nodePool({
    budgets: [{ nodes: '50%' }, { nodes: '0', reasons: ['Drifted'] }],
    annotations: { 'karp-drift.io/drift-hold': record },
  });

  it("says karp-drift's own budget hold is a pause, with karp-drift's way out, and no STALL-BUDGET for it", () => {
    expect(diagnosis({ claims: [old1, old2], nodePools: [held], lock: { state: 'none' } })).toEqual<Blocker[]>([
      {
        code: 'STALL-HELD',
        nodePool: 'general',
        message: 'karp-drift holds Drifted disruption on NodePool general (paused)',
        evidence: [
          'budget {nodes: "0", reasons: [Drifted]} added by karp-drift run run-7 at 2025-08-20T08:50:00Z; the NodePool\'s own budgets are recorded in the karp-drift.io/drift-hold annotation',
        ],
        next: "re-run the staged upgrade to go on from where the cluster stands, or release the hold and let Karpenter go at the NodePool's own budgets: karp-drift resume --nodepool general",
      },
    ]);
  });

  // The same hold means different things by the cluster lock and the hold's own switch (apis/hold-state.ts).
  const live: RunLock = { state: 'live', holder: 'alice@laptop (run run-7)', command: 'upgrade --to 1.30 --canary canary', renewedAt: at(20).toISOString(), durationSeconds: 30 };
  const switchOf = (armAt: Date) => ({
    nodes: '0',
    reasons: ['Drifted' as const],
    schedule: `${armAt.getUTCMinutes()} ${armAt.getUTCHours()} ${armAt.getUTCDate()} ${armAt.getUTCMonth() + 1} *`,
    duration: '720h',
  });
  const pacing = (armAt: Date, allowance: string) =>
    nodePool({ budgets: [{ nodes: '50%' }, switchOf(armAt), { nodes: allowance, reasons: ['Drifted'] }], annotations: { 'karp-drift.io/drift-hold': record } });
  it.each<[string, World, string | undefined, RegExp | undefined]>([
    ['a lock not read: the hold is not called a pause', { nodePools: [held] }, 'karp-drift holds Drifted disruption on NodePool general', /karp-drift resume --nodepool general/],
    ['a live run paces it: not a pause, and only wait is offered', { nodePools: [held], lock: live }, 'karp-drift holds Drifted disruption on NodePool general (paced by a live run)', /karp-drift wait/],
    [
      "a dead run's switch fired: held at 0 by the switch, said as such",
      { nodePools: [pacing(at(15), '2')], lock: { state: 'none' } },
      "karp-drift holds Drifted disruption on NodePool general (paused: its run is gone and its dead man's switch holds drift at 0)",
      /karp-drift resume --nodepool general/,
    ],
    ['a dead run still draining (switch ahead, allowance 2): no STALL-HELD, Karpenter may go on', { nodePools: [pacing(at(22), '2')], lock: { state: 'none' } }, undefined, undefined],
  ])('%s', (_name, world, message, next) => {
    const blockers = only(diagnosis({ claims: [old1, old2], ...world }), 'STALL-HELD');
    expect(blockers[0]?.message).toBe(message);
    if (next) expect(blockers[0]!.next).toMatch(next);
    if (world.lock?.state === 'live') expect(blockers[0]!.evidence).toContain('the live run alice@laptop (run run-7) (karp-drift upgrade --to 1.30 --canary canary), lease renewed 0s ago (30s lease)');
  });

  it("karp-drift's do-not-disrupt on nodes is STALL-HELD, not STALL-DO-NOT-DISRUPT", () => {
    const nodes = [nodeFor(old1, { doNotDisrupt: true, heldBy: 'run-8' }), nodeFor(old2)];
    const blockers = diagnosis({ claims: [old1, old2], nodes });
    expect(codes(blockers)).toEqual(['STALL-HELD']);
    expect(blockers[0]!.evidence).toEqual([
      'node ip-general-old01 has karpenter.sh/do-not-disrupt from karp-drift run run-8',
    ]);
  });

  it.each<[string, World]>([
    [
      'the hold lets some start (a wave under way)',
      {
        claims: [old1],
        nodePools: [
          nodePool({
            budgets: [{ nodes: '50%' }, { nodes: '2', reasons: ['Drifted'] }],
            annotations: { 'karp-drift.io/drift-hold': record },
          }),
        ],
      },
    ],
    [
      "a user budget of 0 without karp-drift's record is the user's",
      { claims: [old1], nodePools: [nodePool({ budgets: [{ nodes: '50%' }, { nodes: '0', reasons: ['Drifted'] }] })] },
    ],
    ["the user's own do-not-disrupt", { claims: [old1], nodes: [nodeFor(old1, { doNotDisrupt: true })] }],
  ])('does not fire when %s', (_name, w) => {
    expect(only(diagnosis(w), 'STALL-HELD')).toEqual([]);
  });

  it("judges the NodePool's own budgets without karp-drift's hold", () => {
    const ownZero = nodePool({
      budgets: [{ nodes: '0' }, { nodes: '0', reasons: ['Drifted'] }],
      annotations: {
        'karp-drift.io/drift-hold': JSON.stringify({
          runId: 'r',
          since: '2025-08-20T08:50:00Z',
          budgets: [{ nodes: '0' }],
        }),
      },
    });
    const blockers = diagnosis({ claims: [old1], nodePools: [ownZero] });
    expect(codes(blockers)).toEqual(['STALL-HELD', 'STALL-BUDGET']);
    expect(only(blockers, 'STALL-BUDGET')[0]!.evidence[0]).toBe(
      'spec.disruption.budgets[0] {nodes: "0"} is always active',
    );
  });
});

describe('STALL-BUDGET', () => {
  const budgetEvent = event({ count: 3, firstTimestamp: iso(at(8)), lastTimestamp: iso(at(19)) });

  it('names the blocking budget, its window end in UTC, and quotes the NodePool event', () => {
    const blockers = diagnosis({
      claims: [old1, old2],
      events: [budgetEvent],
      nodePools: [
        nodePool({
          budgets: [{ nodes: '50%' }, { nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * *', duration: '8h' }],
        }),
      ],
    });
    expect(blockers).toEqual<Blocker[]>([
      {
        code: 'STALL-BUDGET',
        nodePool: 'general',
        message: 'No allowed disruptions for reason Drifted (NodePool general)',
        evidence: [
          'spec.disruption.budgets[1] {nodes: "0", reasons: [Drifted], schedule: "0 9 * * *", duration: 8h} is active until 2025-08-20T17:00:00Z (UTC)',
          'Drifted: limit 0 over 2 initialized nodes, 0 disrupting, 2 drifted waiting',
          'event DisruptionBlocked on NodePool/general (60s ago, x3 over 12m): "No allowed disruptions for disruption reason Drifted due to blocking budget"',
        ],
        next: 'Wait until 2025-08-20T17:00:00Z (UTC), when spec.disruption.budgets[1] ends, or allow Drifted disruptions (budgets are not hashed: editing them causes no drift): kubectl edit nodepool general',
      },
    ]);
  });

  it('without a schedule, says to allow Drifted disruptions', () => {
    const [b] = diagnosis({ claims: [old1], nodePools: [nodePool({ budgets: [{ nodes: '0' }] })] });
    expect([b?.evidence[0], b?.next]).toEqual([
      'spec.disruption.budgets[0] {nodes: "0"} is always active',
      'Allow Drifted disruptions in spec.disruption.budgets (budgets are not hashed: editing them causes no drift): kubectl edit nodepool general',
    ]);
  });

  it('an invalid budget fails closed, as Karpenter does', () => {
    const [b] = diagnosis({
      claims: [old1],
      nodePools: [nodePool({ budgets: [{ nodes: '10%', schedule: '0 25 * * *', duration: '1h' }] })],
    });
    expect(b?.code).toBe('STALL-BUDGET');
    expect(b?.evidence[0]).toMatch(
      /^spec\.disruption\.budgets\[0\] \{nodes: "10%", schedule: "0 25 \* \* \*", duration: 1h\} is invalid \(invalid cron .*\), so Karpenter allows 0$/,
    );
    expect(b?.next).toMatch(/^Fix spec\.disruption\.budgets\[0\] \(budgets are not hashed/);
  });

  it('names NotReady nodes that use up the default budget', () => {
    // An old node (a NotReady replacement is the target AMI failing: bad-ami.test.ts).
    const sick = nodeClaim({ name: 'general-sick1' });
    const claims = [old1, old2, sick];
    const nodes = [nodeFor(old1), nodeFor(old2), nodeFor(sick, { ready: false })];
    expect(only(diagnosis({ claims, nodes }), 'STALL-BUDGET')).toEqual<Blocker[]>([
      {
        code: 'STALL-BUDGET',
        nodePool: 'general',
        message: 'No allowed disruptions for reason Drifted (NodePool general)',
        evidence: [
          'the default budget {nodes: "10%"} is always active',
          'Drifted: limit 1 over 3 initialized nodes, 1 disrupting, 2 drifted waiting',
          'node ip-general-sick1 is NotReady and uses the budget',
        ],
        next: 'Bring back or remove the NotReady nodes (kubectl get nodes -l karpenter.sh/nodepool=general): they use up the budget',
      },
    ]);
  });

  it.each<[string, World]>([
    ['the default budget allows one', { claims: [old1, old2] }],
    [
      'the budget is used by a replacement in flight',
      {
        claims: [drifted('general-old01', { disruptionReason: true }), old2],
        nodePools: [nodePool({ budgets: [{ nodes: '1' }] })],
      },
    ],
    [
      'a zero budget outside its window',
      { claims: [old1], nodePools: [nodePool({ budgets: [{ nodes: '0', schedule: '0 0 * * *', duration: '1h' }] })] },
    ],
    [
      'nothing drifted waits',
      {
        claims: [nodeClaim({ name: 'general-new01', imageId: 'ami-new' })],
        nodePools: [nodePool({ budgets: [{ nodes: '0' }] })],
      },
    ],
    [
      'the budget only limits other reasons',
      { claims: [old1], nodePools: [nodePool({ budgets: [{ nodes: '0', reasons: ['Empty'] }] })] },
    ],
  ])('does not fire when %s', (_name, w) => {
    expect(only(diagnosis(w), 'STALL-BUDGET')).toEqual([]);
  });
});

describe('STALL-PDB and STALL-NO-TGP', () => {
  const ledger = pod({ nodeName: 'ip-general-old01' });
  const events = [
    event({
      uid: 'e1',
      involvedKind: 'Node',
      involvedName: 'ip-general-old01',
      message: 'pdb "payments/ledger" prevents pod evictions',
      lastTimestamp: iso(at(18)),
      firstTimestamp: iso(at(18)),
    }),
    event({
      uid: 'e2',
      involvedKind: 'NodeClaim',
      involvedName: 'general-old01',
      message: 'pdb "payments/ledger" prevents pod evictions',
      lastTimestamp: iso(at(18)),
      firstTimestamp: iso(at(18)),
    }),
    event({
      uid: 'e3',
      involvedKind: 'Node',
      involvedName: 'ip-general-old01',
      message: 'pdb "other/thing" prevents pod evictions',
    }),
  ];

  it('names the PDB, its pods and nodes, quotes DisruptionBlocked, and flags the missing terminationGracePeriod', () => {
    expect(
      diagnosis({
        claims: [old1, old2],
        pdbs: [pdb()],
        pods: [ledger, pod({ name: 'web-1', labels: { app: 'web' } })],
        events,
      }),
    ).toEqual<Blocker[]>([
      {
        code: 'STALL-PDB',
        nodePool: 'general',
        message: 'PDB "payments/ledger" prevents pod evictions on 1 drifted node (NodePool general)',
        evidence: [
          'PDB payments/ledger: disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1)',
          'pod payments/ledger-0 on node ip-general-old01 (NodeClaim general-old01)',
          'event DisruptionBlocked on Node/ip-general-old01 (2m ago): "pdb "payments/ledger" prevents pod evictions"',
          'event DisruptionBlocked on NodeClaim/general-old01 (2m ago): "pdb "payments/ledger" prevents pod evictions"',
        ],
        next: 'Let PDB payments/ledger allow an eviction: scale out what it protects or relax minAvailable/maxUnavailable (kubectl get pdb ledger -n payments -o yaml)',
      },
      {
        code: 'STALL-NO-TGP',
        nodePool: 'general',
        message: '1 blocked NodeClaim without terminationGracePeriod can stay blocked forever (NodePool general)',
        evidence: [
          'NodeClaim general-old01 has no spec.terminationGracePeriod',
          'a NodeClaim copies terminationGracePeriod when it is created and its spec is immutable: a NodePool change helps only NodeClaims created after it',
        ],
        next: 'Remove what holds them (the other blockers of this NodePool); for the next rollout set spec.template.spec.terminationGracePeriod on NodePool "general" (e.g. 24h), after which drift evicts past PDBs and do-not-disrupt (the change itself drifts the NodePool\'s NodeClaims: NodePoolDrifted)',
      },
    ]);
  });

  it('quotes FailedDraining while the old node drains under a terminationGracePeriod, with no STALL-NO-TGP', () => {
    const draining = drifted('general-old01', {
      disruptionReason: true,
      deleting: true,
      terminationGracePeriod: '24h',
    });
    const failed = event({
      uid: 'e4',
      reason: 'FailedDraining',
      type: 'Warning',
      involvedKind: 'Node',
      involvedName: 'ip-general-old01',
      message: 'Failed to drain node, 1 pods are waiting to be evicted',
      count: 4,
      firstTimestamp: iso(at(12)),
      lastTimestamp: iso(at(19, 30)),
    });
    const blockers = diagnosis({ claims: [draining], pdbs: [pdb()], pods: [ledger], events: [failed] });
    expect(codes(blockers)).toEqual(['STALL-PDB']);
    expect(blockers[0]!.evidence.at(-1)).toBe(
      'event FailedDraining on Node/ip-general-old01 (30s ago, x4 over 8m): "Failed to drain node, 1 pods are waiting to be evicted"',
    );
  });

  it('names pods under several PDBs: eviction does not support multiple PDBs', () => {
    const [b] = diagnosis({
      claims: [old1],
      pdbs: [pdb({ disruptionsAllowed: 1 }), pdb({ name: 'all', selector: {}, disruptionsAllowed: 3 })],
      pods: [ledger],
    });
    expect(b).toEqual<Blocker>({
      code: 'STALL-PDB',
      nodePool: 'general',
      message:
        '1 pod on drifted nodes is covered by several PDBs: eviction does not support multiple PDBs (NodePool general)',
      evidence: [
        'pod payments/ledger-0 on node ip-general-old01 (NodeClaim general-old01): PDBs payments/ledger, payments/all',
      ],
      next: 'Leave each pod under one PDB: kubectl get pdb -n payments -o wide',
    });
  });

  // pdb.go isEvictable: PDBs count only for pods Karpenter would evict.
  it.each<[string, PdbView, Partial<PodView>, StallCode[]]>([
    ['an ordinary pod', pdb(), {}, ['STALL-PDB', 'STALL-NO-TGP']],
    [
      'a DaemonSet pod that does not tolerate karpenter.sh/disrupted',
      pdb(),
      { daemonSet: true },
      ['STALL-PDB', 'STALL-NO-TGP'],
    ],
    ['a DaemonSet pod that tolerates karpenter.sh/disrupted', pdb(), { daemonSet: true, toleratesDisrupted: true }, []],
    ['a mirror (static) pod', pdb(), { mirror: true }, []],
    [
      'an unready pod under an AlwaysAllow PDB',
      pdb({ unhealthyPodEvictionPolicy: 'AlwaysAllow' }),
      { notReady: true },
      [],
    ],
    [
      'a ready pod under an AlwaysAllow PDB',
      pdb({ unhealthyPodEvictionPolicy: 'AlwaysAllow' }),
      {},
      ['STALL-PDB', 'STALL-NO-TGP'],
    ],
    [
      'an unready pod under an IfHealthyBudget PDB',
      pdb({ unhealthyPodEvictionPolicy: 'IfHealthyBudget' }),
      { notReady: true },
      ['STALL-PDB', 'STALL-NO-TGP'],
    ],
    ['an unready pod under a PDB with no policy', pdb(), { notReady: true }, ['STALL-PDB', 'STALL-NO-TGP']],
  ])('%s', (_name, budget, o, expected) => {
    const blockers = diagnosis({ claims: [old1], pdbs: [budget], pods: [pod({ nodeName: 'ip-general-old01', ...o })] });
    expect(codes(blockers)).toEqual(expected);
  });

  it.each<[string, World]>([
    ['the PDB allows an eviction', { claims: [old1], pdbs: [pdb({ disruptionsAllowed: 1 })], pods: [ledger] }],
    [
      'the pod runs on a node already on target',
      { claims: [nodeClaim({ name: 'general-old01', imageId: 'ami-new' })], pdbs: [pdb()], pods: [ledger] },
    ],
    ['the PDB is in another namespace', { claims: [old1], pdbs: [pdb({ namespace: 'other' })], pods: [ledger] }],
    [
      'the pod is a DaemonSet pod that tolerates karpenter.sh/disrupted',
      {
        claims: [old1],
        pdbs: [pdb()],
        pods: [pod({ nodeName: 'ip-general-old01', daemonSet: true, toleratesDisrupted: true })],
      },
    ],
    [
      'the pod is a mirror (static) pod',
      { claims: [old1], pdbs: [pdb()], pods: [pod({ nodeName: 'ip-general-old01', mirror: true })] },
    ],
    // A crash-looping app under an AlwaysAllow PDB: Karpenter may evict its unready pods, so it does not hold drift.
    [
      'the pod is unready and its PDB is unhealthyPodEvictionPolicy: AlwaysAllow',
      {
        claims: [old1],
        pdbs: [pdb({ unhealthyPodEvictionPolicy: 'AlwaysAllow' })],
        pods: [pod({ nodeName: 'ip-general-old01', notReady: true })],
      },
    ],
    [
      'the pod has finished',
      { claims: [old1], pdbs: [pdb()], pods: [pod({ nodeName: 'ip-general-old01', phase: 'Succeeded' })] },
    ],
    // Drift is "eventual": a NodeClaim with its own terminationGracePeriod is picked despite PDBs (DOMAIN.md §2.7).
    [
      'the NodeClaim has a terminationGracePeriod and is not draining yet',
      { claims: [drifted('general-old01', { terminationGracePeriod: '1h' })], pdbs: [pdb()], pods: [ledger] },
    ],
  ])('does not fire when %s', (_name, w) => {
    expect(diagnosis(w).filter((b) => b.code === 'STALL-PDB' || b.code === 'STALL-NO-TGP')).toEqual([]);
  });
});

describe('STALL-DO-NOT-DISRUPT', () => {
  const blockedOn = (kind: string, name: string, message: string, minute: number) =>
    event({
      uid: `${kind}-${name}-${minute}`,
      involvedKind: kind,
      involvedName: name,
      message,
      firstTimestamp: iso(at(minute)),
      lastTimestamp: iso(at(minute)),
    });
  it("names annotated nodes and pods on drifted nodes, and quotes Karpenter's DisruptionBlocked", () => {
    const nodeMessage = 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation';
    const podMessage = 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=batch/train-7)';
    const blockers = diagnosis({
      claims: [old1, old2],
      nodes: [nodeFor(old1, { doNotDisrupt: true }), nodeFor(old2)],
      pods: [
        pod({ namespace: 'batch', name: 'train-7', nodeName: 'ip-general-old02', doNotDisrupt: 'true', labels: {} }),
      ],
      events: [
        blockedOn('Node', 'ip-general-old01', nodeMessage, 17),
        blockedOn('Node', 'ip-general-old02', podMessage, 18),
        blockedOn('NodeClaim', 'general-old02', podMessage, 18),
        blockedOn('Node', 'ip-general-old02', 'Pdb prevents pod evictions (PodDisruptionBudget=[batch/train])', 16),
      ],
    });
    expect(blockers[0]).toEqual<Blocker>({
      code: 'STALL-DO-NOT-DISRUPT',
      nodePool: 'general',
      message: 'karpenter.sh/do-not-disrupt holds 2 drifted nodes (NodePool general)',
      evidence: [
        'node ip-general-old01 (NodeClaim general-old01) is annotated karpenter.sh/do-not-disrupt: "true"',
        'pod batch/train-7 on node ip-general-old02 (NodeClaim general-old02) is annotated karpenter.sh/do-not-disrupt: "true"',
        `event DisruptionBlocked on Node/ip-general-old02 (2m ago): "${podMessage}"`,
        `event DisruptionBlocked on NodeClaim/general-old02 (2m ago): "${podMessage}"`,
        `event DisruptionBlocked on Node/ip-general-old01 (3m ago): "${nodeMessage}"`,
      ],
      next: 'When its workloads may move, remove the annotation: kubectl annotate node ip-general-old01 karpenter.sh/do-not-disrupt- (likewise for the others listed)',
    });
    expect(codes(blockers)).toEqual(['STALL-DO-NOT-DISRUPT', 'STALL-NO-TGP']);
  });

  it('for a duration, says when it runs out, and a NodeClaim it alone holds gets no STALL-NO-TGP', () => {
    const blockers = diagnosis({
      claims: [old1],
      pods: [pod({ nodeName: 'ip-general-old01', doNotDisrupt: '30m', startTime: iso(at(5)) })],
    });
    expect(codes(blockers)).toEqual(['STALL-DO-NOT-DISRUPT']);
    expect(blockers[0]!.evidence[0]).toBe(
      'pod payments/ledger-0 on node ip-general-old01 (NodeClaim general-old01) is annotated karpenter.sh/do-not-disrupt: "30m", which holds until 2025-08-20T14:35:00Z (15m from now)',
    );
    expect(blockers[0]!.next).toBe(
      'Wait until 2025-08-20T14:35:00Z, when its do-not-disrupt runs out, or remove the annotation once the pod may be evicted: kubectl annotate pod ledger-0 -n payments karpenter.sh/do-not-disrupt-',
    );
  });

  // IsDoNotDisruptActive: "true", or a positive Go duration while the pod is younger than it (started 14:05, now
  // 14:20: 15 minutes old). Anything else is ignored: never a blocker, so never "blocked forever" either.
  it.each<[string, string, string | undefined, StallCode[]]>([
    ['"true"', 'true', iso(at(5)), ['STALL-DO-NOT-DISRUPT', 'STALL-NO-TGP']],
    ['"True"', 'True', iso(at(5)), []],
    ['"yes"', 'yes', iso(at(5)), []],
    ['"false"', 'false', iso(at(5)), []],
    ['""', '', iso(at(5)), []],
    ['"30m", 15m old', '30m', iso(at(5)), ['STALL-DO-NOT-DISRUPT']],
    ['"30m", 31m old (expired)', '30m', iso(at(-11)), []],
    ['"15m", exactly 15m old (expired)', '15m', iso(at(5)), []],
    ['"30m", not started yet (fail safe)', '30m', undefined, ['STALL-DO-NOT-DISRUPT']],
    ['"0s"', '0s', iso(at(5)), []],
    ['"-5m"', '-5m', iso(at(5)), []],
    ['"garbage"', 'garbage', iso(at(5)), []],
  ])('value %s', (_name, value, startTime, expected) => {
    const annotated = pod({ nodeName: 'ip-general-old01', doNotDisrupt: value, ...(startTime ? { startTime } : {}) });
    expect(codes(diagnosis({ claims: [old1], pods: [annotated] }))).toEqual(expected);
  });

  // Karpenter checks do-not-disrupt on every active pod of the node, DaemonSet and mirror pods included.
  it.each<[string, Partial<PodView>, StallCode[]]>([
    ['an ordinary pod', {}, ['STALL-DO-NOT-DISRUPT', 'STALL-NO-TGP']],
    [
      'a DaemonSet pod that tolerates karpenter.sh/disrupted',
      { daemonSet: true, toleratesDisrupted: true },
      ['STALL-DO-NOT-DISRUPT', 'STALL-NO-TGP'],
    ],
    ['a mirror (static) pod', { mirror: true }, ['STALL-DO-NOT-DISRUPT', 'STALL-NO-TGP']],
    ['a finished pod', { phase: 'Succeeded' }, []],
    ['a terminating pod', { deleting: true }, []],
  ])('holds on %s', (_name, o, expected) => {
    const annotated = pod({ nodeName: 'ip-general-old01', doNotDisrupt: 'true', ...o });
    expect(codes(diagnosis({ claims: [old1], pods: [annotated] }))).toEqual(expected);
  });

  it('for a pod, says how to remove the pod annotation', () => {
    const [b] = diagnosis({ claims: [old1], pods: [pod({ nodeName: 'ip-general-old01', doNotDisrupt: 'true' })] });
    expect(b?.next).toBe(
      'When the pod may be evicted, remove the annotation: kubectl annotate pod ledger-0 -n payments karpenter.sh/do-not-disrupt-',
    );
  });

  it.each<[string, World]>([
    [
      'the annotated node is on target',
      {
        claims: [nodeClaim({ name: 'general-new01', imageId: 'ami-new' })],
        nodes: [nodeFor(nodeClaim({ name: 'general-new01', imageId: 'ami-new' }), { doNotDisrupt: true })],
      },
    ],
    [
      'the annotated node has not drifted',
      {
        claims: [nodeClaim({ name: 'general-old01' })],
        nodes: [nodeFor(nodeClaim({ name: 'general-old01' }), { doNotDisrupt: true })],
      },
    ],
    [
      'the pod is on a NodeClaim with a terminationGracePeriod',
      {
        claims: [drifted('general-old01', { terminationGracePeriod: '2h' })],
        pods: [pod({ nodeName: 'ip-general-old01', doNotDisrupt: 'true' })],
      },
    ],
  ])('does not fire when %s', (_name, w) => {
    expect(only(diagnosis(w), 'STALL-DO-NOT-DISRUPT')).toEqual([]);
  });
});

describe('STALL-LAUNCH', () => {
  const ice =
    'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m6i.xlarge capacity in the Availability Zone you requested (us-west-2a).';
  const failing = nodeClaim({
    name: 'general-x7k2p',
    phase: 'created',
    conditions: { Launched: { status: 'Unknown', reason: 'InsufficientCapacityError', message: ice } },
  });
  const iceEvent = (name: string, minutesAgo: number) =>
    event({
      uid: `ice-${name}`,
      reason: 'InsufficientCapacityError',
      type: 'Warning',
      involvedKind: 'NodeClaim',
      involvedName: name,
      message: `NodeClaim ${name} event: ${ice}`,
      firstTimestamp: iso(at(20 - minutesAgo)),
      lastTimestamp: iso(at(20 - minutesAgo)),
    });

  it('quotes the NodeClaim condition and the InsufficientCapacityError event', () => {
    expect(diagnosis({ claims: [old1, failing], events: [iceEvent('general-x7k2p', 1)] })).toEqual<Blocker[]>([
      {
        code: 'STALL-LAUNCH',
        nodePool: 'general',
        message: 'Replacements fail to launch: InsufficientCapacityError (NodePool general)',
        evidence: [
          `NodeClaim general-x7k2p Launched=Unknown InsufficientCapacityError: ${ice}`,
          `event InsufficientCapacityError on NodeClaim/general-x7k2p (60s ago): "NodeClaim general-x7k2p event: ${ice}"`,
        ],
        next: 'Allow more instance types, zones or capacity types in spec.template.spec.requirements (kubectl edit nodepool general); then kubectl get nodeclaims -l karpenter.sh/nodepool=general -w',
      },
    ]);
  });

  it('fires from the event alone once Karpenter has deleted the NodeClaim, by its generated name', () => {
    const [b] = diagnosis({ claims: [old1], events: [iceEvent('general-q9w8e', 4)] });
    expect([b?.code, b?.message]).toEqual([
      'STALL-LAUNCH',
      'Replacements fail to launch: InsufficientCapacityError (NodePool general)',
    ]);
  });

  it('names a class whose Ready is Unknown, and the launch timeout Karpenter copied onto the NodePool', () => {
    const waiting = nodeClaim({
      name: 'general-w4p9x',
      phase: 'created',
      conditions: {
        Launched: { status: 'Unknown', reason: 'NodeClassReadinessUnknown', message: 'NodeClass is in Ready=Unknown' },
      },
    });
    const timedOut = nodePool({
      conditions: {
        NodeRegistrationHealthy: {
          status: 'False',
          reason: 'NodeClassReadinessUnknown',
          message: 'NodeClass is in Ready=Unknown',
        },
      },
    });
    expect(only(diagnosis({ claims: [old1, waiting], nodePools: [timedOut] }), 'STALL-LAUNCH')).toEqual<Blocker[]>([
      {
        code: 'STALL-LAUNCH',
        nodePool: 'general',
        message: 'Replacements fail to launch: NodeClassReadinessUnknown (NodePool general)',
        evidence: [
          'NodeClaim general-w4p9x Launched=Unknown NodeClassReadinessUnknown: NodeClass is in Ready=Unknown',
          'NodePool general NodeRegistrationHealthy=False NodeClassReadinessUnknown: NodeClass is in Ready=Unknown (Karpenter deletes a NodeClaim not launched within 5m)',
        ],
        next: 'kubectl get ec2nodeclass default -o yaml: its Ready condition is Unknown (status.conditions say which dependent)',
      },
    ]);
  });

  it.each<[string, World]>([
    [
      'Launched is only awaiting reconciliation',
      {
        claims: [
          old1,
          nodeClaim({
            name: 'general-x7k2p',
            phase: 'created',
            conditions: {
              Launched: {
                status: 'Unknown',
                reason: 'AwaitingReconciliation',
                message: 'object is awaiting reconciliation',
              },
            },
          }),
        ],
      },
    ],
    [
      'the event is NodeClassNotReady, which Karpenter never publishes (STALL-AMIS-NOT-READY covers the class)',
      { claims: [old1], events: [{ ...iceEvent('general-q9w8e', 1), reason: 'NodeClassNotReady' }] },
    ],
    ['the event is about another NodePool', { claims: [old1], events: [iceEvent('general-gpu-q9w8e', 1)] }],
    [
      'a replacement launched after the failure (the rollout went on)',
      {
        claims: [old1, nodeClaim({ name: 'general-n3w01', phase: 'launched', imageId: 'ami-new', launchedAt: at(18) })],
        events: [iceEvent('general-q9w8e', 4)],
      },
    ],
    ['the event is older than 15 minutes', { claims: [old1], events: [iceEvent('general-q9w8e', 16)] }],
  ])('does not fire when %s', (_name, w) => {
    expect(only(diagnosis(w), 'STALL-LAUNCH')).toEqual([]);
  });
});

describe('STALL-REGISTRATION', () => {
  // Launched (and its Registered condition set) at 14:04: Karpenter deletes it at 14:19 if it has not registered.
  const stuck = nodeClaim({ name: 'general-r3g1s', phase: 'launched', imageId: 'ami-new', launchedAt: at(4) });
  const unhealthy = nodePool({
    conditions: {
      NodeRegistrationHealthy: { status: 'False', reason: 'RegistrationFailed', message: 'Failed to register node' },
    },
  });

  it("names a replacement past Karpenter's registration timeout, and the NodePool condition", () => {
    // Past the init deadline too, so STALL-BAD-AMI comes first (bad-ami.test.ts).
    expect(only(diagnosis({ claims: [old1, stuck], nodePools: [unhealthy] }), 'STALL-REGISTRATION')).toEqual<Blocker[]>([
      {
        code: 'STALL-REGISTRATION',
        nodePool: 'general',
        message: "1 replacement launched but not registered within Karpenter's 15m (NodePool general)",
        evidence: [
          'NodePool general NodeRegistrationHealthy=False RegistrationFailed: Failed to register node',
          'NodeClaim general-r3g1s from ami-new (aws:///us-west-2a/i-generalr3g1s), Registered=Unknown NodeNotFound: Node not registered with cluster; Karpenter deletes it (due 2025-08-20T14:19:00Z UTC)',
          'Karpenter deletes a NodeClaim not registered 15m after launch, and drift tries again',
        ],
        next: 'Find out why nodes from ami-new do not join: aws ec2 get-console-output --instance-id i-generalr3g1s --latest --output text; to stop the roll: karp-drift rollback --nodeclass default',
      },
    ]);
  });

  it('fires on NodeRegistrationHealthy=False RegistrationFailed, naming the retry that is still within its time', () => {
    const retry = nodeClaim({ name: 'general-k8d2w', phase: 'launched', imageId: 'ami-new', launchedAt: at(18) });
    const [b] = diagnosis({ claims: [old1, retry], nodePools: [unhealthy] });
    expect([b?.code, b?.message, b?.evidence[1], b?.next]).toEqual([
      'STALL-REGISTRATION',
      'NodeRegistrationHealthy=False: new nodes fail to join the cluster (NodePool general)',
      'NodeClaim general-k8d2w from ami-new (aws:///us-west-2a/i-generalk8d2w), Registered=Unknown NodeNotFound: Node not registered with cluster; Karpenter deletes it at 2025-08-20T14:33:00Z UTC if it has not registered',
      'Find out why nodes from ami-new do not join: aws ec2 get-console-output --instance-id i-generalk8d2w --latest --output text; to stop the roll: karp-drift rollback --nodeclass default',
    ]);
  });

  it.each<[string, World]>([
    // No 5-minute guess: plain `status` must not call a replacement that is still within Karpenter's limit stalled.
    [
      'the replacement launched 14 minutes ago',
      {
        claims: [old1, nodeClaim({ name: 'general-r3g1s', phase: 'launched', imageId: 'ami-new', launchedAt: at(6) })],
      },
    ],
    [
      'NodeRegistrationHealthy is True',
      {
        claims: [old1],
        nodePools: [
          nodePool({
            conditions: { NodeRegistrationHealthy: { status: 'True', reason: 'NodeRegistrationHealthy', message: '' } },
          }),
        ],
      },
    ],
    [
      'NodeRegistrationHealthy is False for a launch that timed out (STALL-LAUNCH says so)',
      {
        claims: [old1],
        nodePools: [
          nodePool({
            conditions: {
              NodeRegistrationHealthy: {
                status: 'False',
                reason: 'NodeClassReadinessUnknown',
                message: 'NodeClass is in Ready=Unknown',
              },
            },
          }),
        ],
      },
    ],
  ])('does not fire when %s', (_name, w) => {
    expect(only(diagnosis(w), 'STALL-REGISTRATION')).toEqual([]);
  });
});

describe('STALL-AMIS-NOT-READY', () => {
  const notFound = nodeClass({
    statusAmis: [],
    conditions: {
      AMIsReady: {
        status: 'False',
        reason: 'AMINotFound',
        message: 'AMISelector did not match any AMIs',
        observedGeneration: 2,
      },
    },
  });

  it('quotes AMIsReady and the terms, for the EC2NodeClass', () => {
    const blockers = diagnosis({ claims: [nodeClaim({ name: 'general-old01' })], nodeClasses: [notFound] }, at(30));
    expect(blockers).toEqual<Blocker[]>([
      {
        code: 'STALL-AMIS-NOT-READY',
        nodeClass: 'default',
        message:
          'EC2NodeClass "default" AMIsReady=False: AMINotFound, and it now launches no node at all (Ready=False): no replacement and no scale-up until it is fixed or rolled back',
        evidence: [
          'AMIsReady=False AMINotFound: AMISelector did not match any AMIs',
          'amiSelectorTerms: id=ami-new',
          'without status.amis Karpenter sets no AMIDrift, and with Ready=False it deletes every new NodeClaim of this class (NodeClassNotReady): NodePool general waits',
        ],
        next: 'Check the pinned AMIs exist, are available and visible to this account in this region: aws ec2 describe-images --image-ids ami-new --include-deprecated; to go back: karp-drift rollback --nodeclass default',
      },
    ]);
  });

  it('says UnsupportedAlias keeps status.amis, and names the way back', () => {
    const unsupported = nodeClass({
      amiSelectorTerms: [{ alias: 'al2@latest' }],
      statusAmis: [{ id: 'ami-old', requirements: [] }],
      conditions: {
        AMIsReady: {
          status: 'False',
          reason: 'UnsupportedAlias',
          message: 'AL2 aliases are no longer supported on EKS 1.33+',
          observedGeneration: 2,
        },
      },
    });
    const [b] = diagnosis({ claims: [nodeClaim({ name: 'general-old01' })], nodeClasses: [unsupported] }, at(30));
    expect([b?.evidence[2], b?.next]).toEqual([
      'status.amis keeps the AMIs resolved before (ami-old), so nothing drifts; with Ready=False Karpenter deletes every new NodeClaim of this class (NodeClassNotReady): NodePool general waits',
      'The alias family does not support this Kubernetes version (AL2 ends at 1.32, Windows Server 2025 starts at 1.35): pin another family in EC2NodeClass "default"; to go back: karp-drift rollback --nodeclass default',
    ]);
  });

  // Karpenter reconciled generation 2 (Ready says so) but its AMI reconcile failed: AMIsReady and status.amis are
  // those of generation 1, Ready is Unknown.
  const unresolved = nodeClass({
    amiSelectorTerms: [{ alias: 'al2023@v20990101' }],
    statusAmis: [{ id: 'ami-old', requirements: [] }],
    conditions: {
      AMIsReady: { status: 'True', reason: 'AMIsReady', message: '', observedGeneration: 1 },
      Ready: { status: 'Unknown', reason: 'ReconcilingDependents', message: 'AMIsReady=True', observedGeneration: 2 },
    },
  });

  it('names an alias Karpenter cannot resolve, in plain status and in the follow, instead of "is Karpenter running?"', () => {
    const expected: Blocker = {
      code: 'STALL-AMIS-NOT-READY',
      nodeClass: 'default',
      message:
        'EC2NodeClass "default" cannot resolve alias "al2023@v20990101" and now launches no node at all (Ready=Unknown): no replacement and no scale-up until it is fixed or rolled back',
      evidence: [
        'Ready=Unknown ReconcilingDependents: AMIsReady=True (generation 2)',
        'AMIsReady is still at generation 1 (True AMIsReady): Karpenter\'s AMI reconcile fails with "failed to discover any AMIs for alias" (its log) and retries',
        'amiSelectorTerms: alias=al2023@v20990101',
        'status.amis still lists what was resolved before: ami-old',
        'every launch from this class fails while Ready is not True: NodePool general waits',
      ],
      next: 'Check that the alias\'s release exists for the control plane\'s Kubernetes version (kubectl logs -n <karpenter namespace> -l app.kubernetes.io/name=karpenter --tail=500 | grep "failed to discover any AMIs"); to go back: karp-drift rollback --nodeclass default',
    };
    const quiet = [nodeClaim({ name: 'general-old01' })];
    expect(diagnosis({ claims: quiet, nodeClasses: [unresolved] }, at(30))).toEqual([expected]);
    // `status` has no applied generation: the class's own generation stands in.
    const status = scope({ startedAt: at(30), targetImageIds: { default: [] } });
    delete status.nodeClassGenerations;
    expect(diagnosis({ claims: quiet, nodeClasses: [unresolved], scope: status }, at(30))).toEqual([expected]);
  });

  it('fires when status.amis resolved something else than the target', () => {
    const other = nodeClass({ statusAmis: [{ id: 'ami-other', requirements: [] }] });
    const [b] = diagnosis({ claims: [], nodeClasses: [other] });
    expect(b).toEqual<Blocker>({
      code: 'STALL-AMIS-NOT-READY',
      nodeClass: 'default',
      message: 'EC2NodeClass "default" resolved AMIs other than the target',
      evidence: ['status.amis: ami-other', 'target: ami-new', 'amiSelectorTerms: id=ami-new'],
      next: 'Another writer may have changed amiSelectorTerms (GitOps, a second run): kubectl get ec2nodeclass default -o yaml --show-managed-fields',
    });
  });

  it.each<[string, NodeClassView]>([
    ['AMIsReady=True with the targets', nodeClass()],
    [
      'AMIsReady=False of a generation before the apply',
      nodeClass({ conditions: { AMIsReady: { ...notFound.conditions.AMIsReady!, observedGeneration: 1 } } }),
    ],
  ])('does not fire when %s', (_name, c) => {
    expect(only(diagnosis({ claims: [old1], nodeClasses: [c] }, at(5)), 'STALL-AMIS-NOT-READY')).toEqual([]);
  });
});

describe('STALL-NOT-DRIFTING', () => {
  const quiet = [nodeClaim({ name: 'general-old01' }), nodeClaim({ name: 'general-old02' })];

  it('names old NodeClaims without Drifted ten minutes after the change', () => {
    expect(diagnosis({ claims: quiet }, at(12))).toEqual<Blocker[]>([
      {
        code: 'STALL-NOT-DRIFTING',
        nodePool: 'general',
        message: '2 NodeClaims off target without Drifted 11m after the EC2NodeClass changed (NodePool general)',
        evidence: [
          'NodeClaim general-old01 on ami-old (node ip-general-old01)',
          'NodeClaim general-old02 on ami-old (node ip-general-old02)',
          'EC2NodeClass default status.amis: ami-new',
        ],
        next: "Look for Karpenter's drift decisions: kubectl get nodeclaims -l karpenter.sh/nodepool=general -o wide (DRIFTED); kubectl logs -n <karpenter namespace> -l app.kubernetes.io/name=karpenter --tail=500 | grep -i drift",
      },
    ]);
  });

  it('says when the old AMI is still resolved, and recalls the v0.32 drift gate', () => {
    const both = nodeClass({
      statusAmis: [
        { id: 'ami-new', requirements: [] },
        { id: 'ami-old', requirements: [] },
      ],
    });
    const [b] = diagnosis({ claims: quiet, nodeClasses: [both], karpenterApi: 'v1beta1' }, at(12));
    expect(b?.evidence.slice(2)).toEqual([
      'EC2NodeClass default status.amis: ami-new, ami-old',
      'ami-old is still in status.amis: Karpenter sees no AMIDrift while the selector matches it',
      'Karpenter v0.32 ships with drift off: its FEATURE_GATES must include Drift=true',
    ]);
    expect(b?.next).toBe('Narrow amiSelectorTerms of EC2NodeClass "default" to the target AMIs');
  });

  it('fires when the EC2NodeClass has not observed the applied generation', () => {
    const stale = nodeClass({
      conditions: { AMIsReady: { status: 'True', reason: 'AMIsReady', message: '', observedGeneration: 1 } },
    });
    expect(diagnosis({ claims: quiet, nodeClasses: [stale] }, at(12))).toEqual<Blocker[]>([
      {
        code: 'STALL-NOT-DRIFTING',
        nodePool: 'general',
        message: 'EC2NodeClass "default" has not observed generation 2 12m after the change (NodePool general)',
        evidence: ['AMIsReady observedGeneration 1 (True AMIsReady)'],
        next: 'Is Karpenter running? kubectl get pods -A -l app.kubernetes.io/name=karpenter; then kubectl logs -n <karpenter namespace> -l app.kubernetes.io/name=karpenter --tail=500',
      },
    ]);
  });

  it('on v0.32–v0.36, whose EC2NodeClass has no conditions, reads status.amis: taken means the NodeClaims should drift', () => {
    const v036 = nodeClass({ conditions: {} });
    const [b] = diagnosis({ claims: quiet, nodeClasses: [v036], karpenterApi: 'v1beta1' }, at(12));
    expect(b?.message).toBe('2 NodeClaims off target without Drifted 12m after the EC2NodeClass changed (NodePool general)');
    const drifted = diagnosis({ claims: [old1, old2], nodeClasses: [v036], karpenterApi: 'v1beta1', nodePools: [nodePool({ budgets: [] })] }, at(30));
    expect(only(drifted, 'STALL-NOT-DRIFTING')).toEqual([]);
  });

  it('on v0.32–v0.36, a status.amis without the targets is a class not reconciled', () => {
    const stale = nodeClass({ statusAmis: [{ id: 'ami-old', requirements: [] }], conditions: {} });
    const [b] = diagnosis({ claims: quiet, nodeClasses: [stale], karpenterApi: 'v1beta1' }, at(12));
    expect(b?.message).toBe('EC2NodeClass "default" has not observed generation 2 12m after the change (NodePool general)');
    expect(b?.evidence).toEqual([
      'the EC2NodeClass has no conditions (Karpenter v0.32–v0.36 write none) and its status.amis lists ami-old, not every target',
    ]);
  });

  it.each<[string, World, Date]>([
    ['it has been 9 minutes', { claims: quiet }, at(9)],
    ['the old NodeClaims are Drifted', { claims: [old1, old2], nodePools: [nodePool({ budgets: [] })] }, at(30)],
    [
      'the class only just settled',
      {
        claims: quiet,
        nodeClasses: [
          nodeClass({
            conditions: {
              AMIsReady: {
                status: 'True',
                reason: 'AMIsReady',
                message: '',
                observedGeneration: 2,
                lastTransitionTime: iso(at(25)),
              },
            },
          }),
        ],
      },
      at(30),
    ],
    [
      'AMIsReady is False (STALL-AMIS-NOT-READY says why)',
      {
        claims: quiet,
        nodeClasses: [
          nodeClass({
            statusAmis: [],
            conditions: { AMIsReady: { status: 'False', reason: 'AMINotFound', message: '', observedGeneration: 2 } },
          }),
        ],
      },
      at(30),
    ],
  ])('does not fire when %s', (_name, w, now) => {
    expect(only(diagnosis(w, now), 'STALL-NOT-DRIFTING')).toEqual([]);
  });
});

describe('diagnose', () => {
  it('returns nothing for a rollout moving as it should', () => {
    const inFlight = drifted('general-old01', { disruptionReason: true });
    expect(
      diagnosis({
        claims: [
          inFlight,
          old2,
          nodeClaim({ name: 'general-new01', phase: 'registered', imageId: 'ami-new', launchedAt: at(18) }),
        ],
      }),
    ).toEqual([]);
  });

  it('orders blockers as a rollout meets them', () => {
    const blockers = diagnosis({
      claims: [
        old1,
        drifted('general-x7k2p', {
          phase: 'created',
          // Not a reason of the image's (that would be STALL-BAD-AMI, first: bad-ami.test.ts).
          conditions: { Launched: { status: 'False', reason: 'InsufficientFreeAddressesInSubnet', message: 'boom' } },
        }),
      ],
      pods: [pod({ nodeName: 'ip-general-old01', doNotDisrupt: 'true' })],
      nodePools: [nodePool({ budgets: [{ nodes: '0' }] })],
    });
    expect(codes(blockers)).toEqual(['STALL-BUDGET', 'STALL-DO-NOT-DISRUPT', 'STALL-NO-TGP', 'STALL-LAUNCH']);
    expect(blockers.at(-1)?.next).toBe('kubectl describe nodeclaim general-x7k2p');
  });
});

describe('humanDuration (kubectl)', () => {
  it.each([
    [0, '0s'],
    [59_000, '59s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [252_000, '4m12s'],
    [25 * 60_000, '25m'],
    [200 * 60_000, '3h20m'],
    [10 * 3_600_000, '10h'],
    [53 * 3_600_000, '2d5h'],
    [400 * 86_400_000, '400d'],
  ])('%d ms → %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
