// STALL-UNSCHEDULABLE: Karpenter's scheduling simulation skips a drifted node ("Not all pods would schedule, …"),
// and how it sits with the other pod-level blockers. Twenty minutes into a rollout of NodePool "general"
// (EC2NodeClass "default": ami-old → ami-new), as in stalls.test.ts.
import { describe, expect, it } from 'vitest';
import type { EventView, NodeClaimView, PdbView, PodView } from '../../src/karpenter/views.js';
import { pdbsBlamedIn, podSchedulingErrors } from '../../src/rollout/pod-stalls.js';
import { STALL_CODES, diagnose, type Blocker } from '../../src/rollout/stalls.js';
import { at, event, iso, members, nodeClaim, nodePool, pdb, pod, scope, snapshotOf } from './factories.js';

interface World {
  claims: NodeClaimView[];
  events?: EventView[];
  pdbs?: PdbView[];
  pods?: PodView[];
}

function diagnosis(w: World, now = at(20)): Blocker[] {
  const snapshot = snapshotOf({ ...members(...w.claims), events: w.events ?? [] });
  const context = {
    scope: scope(),
    nodePools: [nodePool()],
    pdbs: w.pdbs ?? [],
    pods: w.pods ?? [],
    karpenterApi: 'v1' as const,
  };
  return diagnose(snapshot, context, now);
}

const drifted = (name: string, o: Parameters<typeof nodeClaim>[0] = {}) => nodeClaim({ name, drifted: true, ...o });
const old1 = drifted('general-old01');
const old2 = drifted('general-old02');

const HOSTNAME =
  'incompatible with nodepool "general", daemonset overhead={"cpu":"100m","memory":"128Mi","pods":"1"}, incompatible requirements, key kubernetes.io/hostname, kubernetes.io/hostname In [ip-general-old01] not in kubernetes.io/hostname In [hostname-placeholder-0007]';
const ZONE =
  'incompatible with nodepool "general", daemonset overhead={"pods":"0"}, incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-west-2d] not in topology.kubernetes.io/zone In [us-west-2a us-west-2b us-west-2c]';
const UNINITIALIZED = 'would schedule against uninitialized nodeclaim/general-x7k2p';

/** The event Karpenter publishes on a skipped candidate's Node (or NodeClaim). */
const blocked = (message: string, o: Partial<EventView> = {}): EventView =>
  event({
    uid: `e-${o.involvedKind ?? 'Node'}-${o.involvedName ?? 'ip-general-old01'}-${o.lastTimestamp ?? ''}`,
    involvedKind: 'Node',
    involvedName: 'ip-general-old01',
    message,
    firstTimestamp: iso(at(19)),
    lastTimestamp: iso(at(19)),
    ...o,
  });
const onBoth = (message: string, minute = 19): EventView[] => [
  blocked(message, { firstTimestamp: iso(at(minute)), lastTimestamp: iso(at(minute)) }),
  blocked(message, {
    involvedKind: 'NodeClaim',
    involvedName: 'general-old01',
    firstTimestamp: iso(at(minute)),
    lastTimestamp: iso(at(minute)),
  }),
];

describe('podSchedulingErrors', () => {
  it.each<[string, string, ReturnType<typeof podSchedulingErrors>]>([
    [
      'a pod pinned by hostname (mirrord agent)',
      `Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME} `,
      { pods: [{ namespace: 'mirrord', name: 'mirrord-agent-x7k2p', reason: HOSTNAME }], others: 0 },
    ],
    [
      'two pods, their errors naming nodeclaim/ and node/',
      'Not all pods would schedule, orb/worker-8dbfb957f-95d4m => would schedule against uninitialized nodeclaim/main-amd64-n646f, node/ip-10-0-130-84.ec2.internal orb/api-5547bdfddb-24gxz => would schedule against uninitialized nodeclaim/main-amd64-f96vt ',
      {
        pods: [
          {
            namespace: 'orb',
            name: 'worker-8dbfb957f-95d4m',
            reason: 'would schedule against uninitialized nodeclaim/main-amd64-n646f, node/ip-10-0-130-84.ec2.internal',
          },
          {
            namespace: 'orb',
            name: 'api-5547bdfddb-24gxz',
            reason: 'would schedule against uninitialized nodeclaim/main-amd64-f96vt',
          },
        ],
        others: 0,
      },
    ],
    [
      'five pods and others (lower case, as in Karpenter logs)',
      `not all pods would schedule, a/p1 => x a/p2 => x a/p3 => x a/p4 => x a/p5 => x  and 3 other(s)`,
      { pods: ['p1', 'p2', 'p3', 'p4', 'p5'].map((name) => ({ namespace: 'a', name, reason: 'x' })), others: 3 },
    ],
    ['another DisruptionBlocked message', 'pdb "payments/ledger" prevents pod evictions', undefined],
  ])('reads %s', (_name, message, expected) => {
    expect(podSchedulingErrors(message)).toEqual(expected);
  });
});

describe('STALL-UNSCHEDULABLE', () => {
  it('comes after the pod-level blockers and before launch, in rollout order', () => {
    expect(STALL_CODES.slice(STALL_CODES.indexOf('STALL-PDB'), STALL_CODES.indexOf('STALL-LAUNCH') + 1)).toEqual([
      'STALL-PDB',
      'STALL-NO-TGP',
      'STALL-UNSCHEDULABLE',
      'STALL-LAUNCH',
    ]);
  });

  it('names a pod pinned by hostname, quotes Karpenter’s newest event per object, and says to delete it; TGP does not help', () => {
    const older = blocked(
      `Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME.replace('0007', '0003')} `,
      {
        uid: 'e-older',
        firstTimestamp: iso(at(16)),
        lastTimestamp: iso(at(16)),
      },
    );
    const events = [older, ...onBoth(`Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME} `)];
    expect(diagnosis({ claims: [old1, old2], events })).toEqual<Blocker[]>([
      {
        code: 'STALL-UNSCHEDULABLE',
        nodePool: 'general',
        message:
          "Not all pods would schedule elsewhere: Karpenter's scheduling simulation holds 1 drifted node (NodePool general)",
        evidence: [
          `pod mirrord/mirrord-agent-x7k2p on node ip-general-old01 (NodeClaim general-old01) would not schedule: ${HOSTNAME}`,
          `event DisruptionBlocked on Node/ip-general-old01 (60s ago): "Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME} "`,
          `event DisruptionBlocked on NodeClaim/general-old01 (60s ago): "Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME} "`,
        ],
        next: 'Pod mirrord/mirrord-agent-x7k2p is pinned to node ip-general-old01 by kubernetes.io/hostname, which no other node has and no new node can have: if nothing owns it (a debugging or agent pod), delete it: kubectl delete pod mirrord-agent-x7k2p -n mirrord; if a controller owns it, take the hostname out of its nodeSelector/affinity. terminationGracePeriod does not help: Karpenter never starts the drain (kubernetes-sigs/karpenter#2984)',
      },
    ]);
  });

  it('for a nodeSelector no NodePool can satisfy, says what to change; counts pods Karpenter left out', () => {
    const message = `Not all pods would schedule, geo/cache-0 => ${ZONE} geo/cache-1 => ${ZONE}  and 2 other(s)`;
    const [b, ...rest] = diagnosis({ claims: [old1], events: onBoth(message) });
    expect(rest).toEqual([]);
    expect(b?.evidence.slice(0, 3)).toEqual([
      `pod geo/cache-0 on node ip-general-old01 (NodeClaim general-old01) would not schedule: ${ZONE}`,
      `pod geo/cache-1 on node ip-general-old01 (NodeClaim general-old01) would not schedule: ${ZONE}`,
      '… and 2 more pods on node ip-general-old01 (NodeClaim general-old01) that Karpenter does not name',
    ]);
    expect(b?.next).toBe(
      "Let the pods run elsewhere: relax the nodeSelector/affinity of pod geo/cache-0 (kubectl get pod cache-0 -n geo -o yaml), or allow what it asks for in a NodePool's spec.template labels or spec.template.spec.requirements (kubectl edit nodepool general) (likewise for the others listed). terminationGracePeriod does not help: Karpenter never starts the drain (kubernetes-sigs/karpenter#2984)",
    );
  });

  it('fires on a NodeClaim with a terminationGracePeriod: the drain never starts', () => {
    const claim = drifted('general-old01', { terminationGracePeriod: '24h' });
    const events = onBoth(`Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME} `);
    expect(diagnosis({ claims: [claim], events }).map((b) => b.code)).toEqual(['STALL-UNSCHEDULABLE']);
  });

  it('while only new nodes are not ready yet, says Karpenter waits for them', () => {
    const [b] = diagnosis({
      claims: [old1],
      events: onBoth(`Not all pods would schedule, web/web-1 => ${UNINITIALIZED} `),
    });
    expect(b?.next).toBe(
      'Karpenter waits for new nodes to initialize before it moves pods onto them: kubectl get nodeclaims -o wide (a replacement that never initializes shows as STALL-LAUNCH or STALL-REGISTRATION)',
    );
  });

  it('leaves a NodeClaim it holds out of STALL-NO-TGP: a terminationGracePeriod would not get it past the simulation', () => {
    const ledger = pod({ nodeName: 'ip-general-old01' });
    const other = pod({ name: 'ledger-1', nodeName: 'ip-general-old02' });
    const events = onBoth(`Not all pods would schedule, mirrord/mirrord-agent-x7k2p => ${HOSTNAME} `, 10);
    const blockers = diagnosis({ claims: [old1, old2], pdbs: [pdb()], pods: [ledger, other], events });
    expect(blockers.map((b) => b.code)).toEqual(['STALL-PDB', 'STALL-NO-TGP', 'STALL-UNSCHEDULABLE']);
    expect(blockers[1]!.evidence[0]).toBe('NodeClaim general-old02 has no spec.terminationGracePeriod');
    expect(blockers[1]!.message).toBe(
      '1 blocked NodeClaim without terminationGracePeriod can stay blocked forever (NodePool general)',
    );
  });

  it.each<[string, World]>([
    [
      'the event is older than 15 minutes',
      { claims: [old1], events: onBoth(`Not all pods would schedule, a/b => ${ZONE} `, 4) },
    ],
    [
      'the node is on target',
      {
        claims: [nodeClaim({ name: 'general-old01', imageId: 'ami-new' })],
        events: onBoth(`Not all pods would schedule, a/b => ${ZONE} `),
      },
    ],
    [
      'Karpenter has since picked the node',
      {
        claims: [drifted('general-old01', { disruptionReason: true })],
        events: onBoth(`Not all pods would schedule, a/b => ${ZONE} `),
      },
    ],
    [
      'the event is about another node',
      {
        claims: [old1],
        events: [blocked(`Not all pods would schedule, a/b => ${ZONE} `, { involvedName: 'ip-other' })],
      },
    ],
    [
      'the node is blocked by a PDB',
      { claims: [old1], events: onBoth('pdb "payments/ledger" prevents pod evictions') },
    ],
  ])('does not fire when %s', (_name, w) => {
    expect(diagnosis(w).filter((b) => b.code === 'STALL-UNSCHEDULABLE')).toEqual([]);
  });
});

// Karpenter's PDB wording changed across releases (DOMAIN.md §2.7): each form names its PDBs somewhere else.
describe('pdbsBlamedIn', () => {
  it.each<[string, string, ReturnType<typeof pdbsBlamedIn>]>([
    ['v1.0–v1.1', 'pdb "payments/ledger" prevents pod evictions', { multiple: false, pdbs: ['payments/ledger'] }],
    ['v1.2–v1.5', 'Pdb "payments/ledger" prevents pod evictions', { multiple: false, pdbs: ['payments/ledger'] }],
    [
      'v1.6+',
      'Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger])',
      { multiple: false, pdbs: ['payments/ledger'] },
    ],
    [
      'v1.6+ without brackets (copied from real clusters)',
      'Pdb prevents pod evictions (PodDisruptionBudget=kube-system/ebs-csi-controller)',
      { multiple: false, pdbs: ['kube-system/ebs-csi-controller'] },
    ],
    [
      'consolidation, unquoted',
      'pdb default/inflate-pdb prevents pod evictions',
      { multiple: false, pdbs: ['default/inflate-pdb'] },
    ],
    [
      'v1.6+ multiple PDBs',
      'Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[payments/ledger payments/all])',
      { multiple: true, pdbs: ['payments/ledger', 'payments/all'] },
    ],
    [
      'multiple PDBs, older (names none)',
      'pod "payments/ledger-0" has multiple PDBs: eviction does not support multiple PDBs',
      { multiple: true, pdbs: [] },
    ],
    ['do-not-disrupt', 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=payments/ledger-0)', undefined],
    ['the scheduling simulation', 'Not all pods would schedule, payments/ledger-0 => no nodepool', undefined],
  ])('reads %s', (_name, message, expected) => {
    expect(pdbsBlamedIn(message)).toEqual(expected);
  });
});

describe('STALL-PDB quotes every wording of the PDB block', () => {
  const ledger = pod({ nodeName: 'ip-general-old01' });
  it.each<[string, string, boolean]>([
    ['v1.0–v1.1', 'pdb "payments/ledger" prevents pod evictions', true],
    ['v1.2–v1.5', 'Pdb "payments/ledger" prevents pod evictions', true],
    ['v1.6+', 'Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger])', true],
    ['v1.6+ without brackets', 'Pdb prevents pod evictions (PodDisruptionBudget=payments/ledger)', true],
    ['consolidation, unquoted', 'pdb payments/ledger prevents pod evictions', true],
    ['another PDB', 'Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger-v2])', false],
    ['another PDB, older', 'pdb "payments/ledger-v2" prevents pod evictions', false],
  ])('%s', (_name, message, quoted) => {
    const [b] = diagnosis({ claims: [old1], pdbs: [pdb()], pods: [ledger], events: [blocked(message)] });
    expect(b?.code).toBe('STALL-PDB');
    expect(b?.evidence.some((line) => line.includes(message))).toBe(quoted);
  });

  it('quotes the multiple-PDB form in the multiple-PDB blocker', () => {
    const message = 'Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[payments/ledger payments/all])';
    const [b] = diagnosis({
      claims: [old1],
      pdbs: [pdb({ disruptionsAllowed: 1 }), pdb({ name: 'all', selector: {}, disruptionsAllowed: 3 })],
      pods: [ledger],
      events: [blocked(message)],
    });
    expect(b?.evidence).toEqual([
      'pod payments/ledger-0 on node ip-general-old01 (NodeClaim general-old01): PDBs payments/ledger, payments/all',
      `event DisruptionBlocked on Node/ip-general-old01 (60s ago): "${message}"`,
    ]);
  });
});

describe('STALL-PDB over unhealthy pods (a bad AMI blocking its own rollback)', () => {
  const crashing = pod({ nodeName: 'ip-general-old01', notReady: true });
  const spent = pdb({ disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 });
  it.each<[string, PdbView, PodView, RegExp | undefined]>([
    [
      'IfHealthyBudget (the default), the pod unready: the policy is the way out',
      spent,
      crashing,
      /unhealthyPodEvictionPolicy IfHealthyBudget \(the default\).*kubectl patch pdb ledger -n payments --type merge -p '\{"spec":\{"unhealthyPodEvictionPolicy":"AlwaysAllow"\}\}'$/,
    ],
    [
      'IfHealthyBudget named, the pod unready',
      { ...spent, unhealthyPodEvictionPolicy: 'IfHealthyBudget' },
      crashing,
      /1 not Ready, e\.g\. payments\/ledger-0\) and PDB payments\/ledger has unhealthyPodEvictionPolicy IfHealthyBudget:/,
    ],
    [
      'the pod Ready: relax the budget',
      spent,
      pod({ nodeName: 'ip-general-old01' }),
      /^Let PDB payments\/ledger allow/,
    ],
    // Evictable whatever the budget (Karpenter's isEvictable): nothing to diagnose.
    ['AlwaysAllow, the pod unready', { ...spent, unhealthyPodEvictionPolicy: 'AlwaysAllow' }, crashing, undefined],
  ])('%s', (_name, p, ledger, next) => {
    const blockers = diagnosis({ claims: [old1], pdbs: [p], pods: [ledger] }).filter((b) => b.code === 'STALL-PDB');
    if (next === undefined) expect(blockers).toEqual([]);
    else expect(blockers[0]?.next).toMatch(next);
  });
});
