// STALL-BAD-AMI: the target AMI fails on what it replaced, judged as the health gates judge it, by contrast with the
// nodes still on the old AMI; it comes first, and the findings whose usual next step would let drift go on say to
// leave them and roll back. Twenty minutes into a rollout of NodePool "general" (EC2NodeClass "default": ami-old →
// ami-new), two old nodes still Ready, as in stalls.test.ts.
import { describe, expect, it } from 'vitest';
import type { NodeClaimView, NodePoolView, NodeView, PdbView, PodView } from '../../src/karpenter/views.js';
import { STALL_CODES, diagnose, type Blocker, type StallCode } from '../../src/rollout/stalls.js';
import type { RolloutScope } from '../../src/rollout/track.js';
import { at, iso, nodeClaim, nodeClass, nodeFor, nodePool, pdb, pod, scope, snapshotOf } from './factories.js';

interface World {
  claims: NodeClaimView[];
  nodes?: NodeView[];
  /** NodeClaims deleted since the follow began (the snapshot's `departed`). */
  departed?: NodeClaimView[];
  pods?: PodView[];
  pdbs?: PdbView[];
  nodePools?: NodePoolView[];
  scope?: RolloutScope;
}

function diagnosis(w: World, now = at(20)): Blocker[] {
  const snapshot = snapshotOf({
    nodeClaims: w.claims,
    nodes: w.nodes ?? w.claims.filter((c) => c.nodeName !== undefined).map((c) => nodeFor(c)),
    nodeClasses: [
      nodeClass(),
      nodeClass({
        name: 'gpu',
        uid: 'uid-gpu',
        amiSelectorTerms: [{ id: 'ami-new-gpu' }],
        statusAmis: [{ id: 'ami-new-gpu', requirements: [] }],
      }),
    ],
  });
  for (const c of w.departed ?? []) snapshot.departed.set(c.name, c);
  return diagnose(
    snapshot,
    {
      scope: w.scope ?? scope(),
      nodePools: w.nodePools ?? [nodePool()],
      pdbs: w.pdbs ?? [],
      pods: w.pods ?? [],
      karpenterApi: 'v1',
    },
    now,
  );
}
const codes = (blockers: Blocker[]): StallCode[] => blockers.map((b) => b.code);
const badAmi = (blockers: Blocker[]): Blocker | undefined => blockers.find((b) => b.code === 'STALL-BAD-AMI');

const old1 = nodeClaim({ name: 'general-old01', drifted: true });
const old2 = nodeClaim({ name: 'general-old02', drifted: true });
/** A replacement created at 14:02, Initialized. */
const new1 = nodeClaim({ name: 'general-new01', imageId: 'ami-new', launchedAt: at(3) });
const ROLLBACK = 'karp-drift rollback --nodeclass default';

const web = (name: string, nodeName: string, o: Partial<PodView> = {}): PodView =>
  pod({
    namespace: 'shop',
    name,
    nodeName,
    labels: { app: 'web' },
    owner: 'ReplicaSet/web-7d9f',
    ready: true,
    createdAt: iso(at(4)),
    ...o,
  });
const crashing: Partial<PodView> = {
  ready: false,
  notReady: true,
  restarts: 7,
  waiting: {
    container: 'web',
    reason: 'CrashLoopBackOff',
    message: 'back-off 5m0s restarting failed container=web pod=web-7d9f-b2_shop(uid-b2)',
    lastExit: 'exit code 139 (Error)',
  },
};
const webOld = web('web-7d9f-a1', 'ip-general-old01');
const webNew = web('web-7d9f-b2', 'ip-general-new01', crashing);

describe('STALL-BAD-AMI', () => {
  it('comes first of all codes', () => {
    expect(STALL_CODES[0]).toBe('STALL-BAD-AMI');
  });

  it('names crash-looping pods on the target AMI in the kubelet’s words, and says to roll back', () => {
    expect(badAmi(diagnosis({ claims: [old1, old2, new1], pods: [webOld, webNew] }))).toEqual<Blocker>({
      code: 'STALL-BAD-AMI',
      nodeClass: 'default',
      message:
        'The target AMI fails on its replacements (EC2NodeClass "default", ami-new): 1 pod of 1 workload failing on 1 node while running Ready on the old AMI',
      evidence: [
        'workload shop/ReplicaSet/web-7d9f: 1 pod on 1 node of ami-new failing, 1 Ready on the old AMI (ami-old); e.g. pod shop/web-7d9f-b2 on node ip-general-new01 (NodeClaim general-new01): container web: CrashLoopBackOff: back-off 5m0s restarting failed container=web pod=web-7d9f-b2_shop(uid-b2); last termination: exit code 139 (Error); 7 restarts',
        '2 nodes of NodePool general still run the old AMI: drift replaces them with this one unless the class is rolled back',
      ],
      next: `Roll the class back before drift replaces more nodes: ${ROLLBACK} (it restores the AMIs the upgrade recorded and follows the nodes back). Leave PDBs, disruption budgets, do-not-disrupt and terminationGracePeriod as they are while the AMI fails: they hold the nodes still on the old AMI`,
    });
  });

  // Each shape a bad AMI takes (DOMAIN.md §1.3–§1.4; the sandbox's bad-ami-* scenarios), as the gates judge it.
  const registering = nodeClaim({ name: 'general-r3g1s', phase: 'launched', imageId: 'ami-new', launchedAt: at(4) });
  const neverReady = nodeClaim({ name: 'general-nr001', phase: 'registered', imageId: 'ami-new', launchedAt: at(5) });
  const CNI = {
    status: 'False',
    reason: 'KubeletNotReady',
    message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
    since: iso(at(6)),
  };
  const LAUNCH_FAILED = { status: 'Unknown' as const, reason: 'LaunchFailed', message: 'Instance launch failed' };
  const refused = nodeClaim({
    name: 'general-lf001',
    phase: 'created',
    createdAt: iso(at(17)),
    conditions: { Launched: { ...LAUNCH_FAILED, lastTransitionTime: iso(at(17)) } },
  });
  const deleted = (c: NodeClaimView, minute: number): NodeClaimView => ({
    ...c,
    deleting: true,
    deletionTimestamp: iso(at(minute)),
  });

  it.each<[string, World, string, string[]]>([
    [
      'ImagePullBackOff',
      {
        claims: [old1, old2, new1],
        pods: [
          webOld,
          web('web-7d9f-b2', 'ip-general-new01', {
            ready: false,
            waiting: { container: 'web', reason: 'ImagePullBackOff', message: 'Back-off pulling image "web:1.4"' },
          }),
        ],
      },
      '1 pod of 1 workload failing on 1 node while running Ready on the old AMI',
      [
        'workload shop/ReplicaSet/web-7d9f: 1 pod on 1 node of ami-new failing, 1 Ready on the old AMI (ami-old); e.g. pod shop/web-7d9f-b2 on node ip-general-new01 (NodeClaim general-new01): container web: ImagePullBackOff: Back-off pulling image "web:1.4"',
      ],
    ],
    [
      'restarting past --max-restarts, Ready between crashes',
      { claims: [old1, old2, new1], pods: [webOld, web('web-7d9f-b2', 'ip-general-new01', { restarts: 4 })] },
      '1 pod of 1 workload failing on 1 node while running Ready on the old AMI',
      [
        'workload shop/ReplicaSet/web-7d9f: 1 pod on 1 node of ami-new failing, 1 Ready on the old AMI (ami-old); e.g. pod shop/web-7d9f-b2 on node ip-general-new01 (NodeClaim general-new01): 4 restarts',
      ],
    ],
    [
      'not Ready past --pod-ready-deadline',
      {
        claims: [old1, old2, new1],
        pods: [webOld, web('web-7d9f-b2', 'ip-general-new01', { ready: false, notReady: true, createdAt: iso(at(14)) })],
      },
      '1 pod of 1 workload failing on 1 node while running Ready on the old AMI',
      [
        'workload shop/ReplicaSet/web-7d9f: 1 pod on 1 node of ami-new failing, 1 Ready on the old AMI (ami-old); e.g. pod shop/web-7d9f-b2 on node ip-general-new01 (NodeClaim general-new01): not Ready 6m after it was created (phase Running)',
      ],
    ],
    [
      'a replacement that never registers, past the init deadline (bad-ami-never-registers)',
      { claims: [old1, old2, registering] },
      '1 replacement not Initialized within 10m',
      [
        'NodeClaim general-r3g1s (NodePool general, AMI ami-new) is not Initialized 17m after it was created: Registered=Unknown NodeNotFound: Node not registered with cluster; Initialized=Unknown NodeNotFound: Node not registered with cluster',
      ],
    ],
    [
      'a replacement deleted by liveness before it was Initialized (bad-ami-never-registers)',
      { claims: [old1, old2], departed: [deleted(registering, 18)] },
      '1 replacement deleted before Initialized',
      [
        "NodeClaim general-r3g1s (NodePool general, AMI ami-new) was deleted before it was Initialized, 15m after it was created: its node never registered; Karpenter's liveness check deletes a NodeClaim not registered 15m after its creation; last seen Registered=Unknown NodeNotFound: Node not registered with cluster; Initialized=Unknown NodeNotFound: Node not registered with cluster",
      ],
    ],
    [
      'a replacement registered and never Ready (bad-ami-never-ready)',
      {
        claims: [old1, old2, neverReady],
        nodes: [nodeFor(old1), nodeFor(old2), nodeFor(neverReady, { ready: false, initialized: false, notReady: CNI })],
      },
      '1 replacement not Initialized within 10m',
      [
        `NodeClaim general-nr001 (NodePool general, AMI ami-new) is not Initialized 16m after it was created: Initialized=Unknown NodeNotReady: Node status is NotReady; node ip-general-nr001 Ready=False KubeletNotReady: ${CNI.message} (since 2025-08-20T14:06:00Z)`,
      ],
    ],
    [
      'a node NotReady after it initialized (bad-ami-not-ready)',
      {
        claims: [old1, old2, new1],
        nodes: [nodeFor(old1), nodeFor(old2), nodeFor(new1, { ready: false, notReady: CNI })],
      },
      '1 node NotReady after initializing',
      [
        `node ip-general-new01 of NodeClaim general-new01 (NodePool general, AMI ami-new) went NotReady after it initialized: Ready=False KubeletNotReady: ${CNI.message} (since 2025-08-20T14:06:00Z)`,
      ],
    ],
    [
      'a launch EC2 refuses, the class resolving only the target (bad-ami-launch-fails)',
      { claims: [old1, old2, refused] },
      '1 launch refused',
      [
        'NodeClaim general-lf001 (NodePool general) fails to launch from ami-new: Launched=Unknown LaunchFailed: Instance launch failed (created 3m ago)',
      ],
    ],
    [
      'a launch refused until liveness deleted it (bad-ami-launch-fails)',
      { claims: [old1, old2], departed: [deleted({ ...refused, createdAt: iso(at(12)) }, 17)] },
      '1 replacement deleted before Initialized',
      [
        'NodeClaim general-lf001 (NodePool general) was deleted before it was Initialized, 5m after it was created: it never launched; Karpenter deletes a NodeClaim whose launch keeps failing 5m after its creation, and at once one its EC2NodeClass cannot launch (not Ready); last seen Launched=Unknown LaunchFailed: Instance launch failed; Registered not set; Initialized not set',
      ],
    ],
  ])('%s', (_name, w, summary, evidence) => {
    const blockers = diagnosis(w);
    expect(codes(blockers)[0]).toBe('STALL-BAD-AMI');
    const b = badAmi(blockers)!;
    expect(b.message).toBe(`The target AMI fails on its replacements (EC2NodeClass "default", ami-new): ${summary}`);
    expect(b.evidence.slice(0, -1)).toEqual(evidence);
    expect(b.next).toContain(ROLLBACK);
  });

  it('quotes NodeRegistrationHealthy=False beside the failures', () => {
    const unhealthy = nodePool({
      conditions: {
        NodeRegistrationHealthy: { status: 'False', reason: 'RegistrationFailed', message: 'Failed to register node' },
      },
    });
    const b = badAmi(diagnosis({ claims: [old1, old2, registering], nodePools: [unhealthy] }))!;
    expect(b.evidence).toContain('NodePool general: NodeRegistrationHealthy=False RegistrationFailed: Failed to register node');
  });

  const billing = (name: string, nodeName: string, o: Partial<PodView> = {}) =>
    pod({ namespace: 'payments', name, nodeName, owner: 'ReplicaSet/billing-5c', ...crashing, ...o });

  it.each<[string, World]>([
    [
      'a crash-looping app that fails on the old AMI too: its own trouble, as the gates’ baseline says',
      {
        claims: [old1, old2, new1],
        pods: [billing('billing-5c-a1', 'ip-general-old01'), billing('billing-5c-b2', 'ip-general-new01')],
      },
    ],
    [
      'a workload failing where no old-AMI node runs it: nothing to compare with',
      { claims: [old1, old2, new1], pods: [webNew] },
    ],
    [
      'no old node left Ready (a finished rollout, or `status` of a cluster on one AMI)',
      {
        claims: [new1, old1],
        nodes: [nodeFor(new1, { ready: false, notReady: CNI }), nodeFor(old1, { ready: false })],
        pods: [webNew, web('web-7d9f-c3', 'ip-general-new01')],
      },
    ],
    [
      'a replacement still coming up within the init deadline',
      {
        claims: [
          old1,
          old2,
          nodeClaim({ name: 'general-r3g1s', phase: 'launched', imageId: 'ami-new', launchedAt: at(15) }),
        ],
      },
    ],
    [
      'a pod not Ready yet within --pod-ready-deadline',
      {
        claims: [old1, old2, new1],
        pods: [webOld, web('web-7d9f-b2', 'ip-general-new01', { ready: false, createdAt: iso(at(18)) })],
      },
    ],
    [
      'a replacement deleted for insufficient capacity (no Launched reason of the image’s)',
      { claims: [old1, old2], departed: [deleted(nodeClaim({ name: 'general-ice01', phase: 'created' }), 19)] },
    ],
    [
      'a launch refused for a reason that is not the image’s (Unauthorized)',
      {
        claims: [
          old1,
          old2,
          {
            ...refused,
            conditions: {
              Launched: {
                status: 'Unknown',
                reason: 'Unauthorized',
                message: 'User is not authorized to perform this operation because no identity-based policy allows it',
              },
            },
          },
        ],
      },
    ],
    [
      'a deletion made history by a later replacement that initialized',
      {
        claims: [old1, old2, nodeClaim({ name: 'general-new02', imageId: 'ami-new', launchedAt: at(19) })],
        departed: [deleted(registering, 18)],
      },
    ],
    [
      'an old node NotReady (not on the target AMI)',
      { claims: [old1, old2], nodes: [nodeFor(old1), nodeFor(old2, { ready: false, notReady: CNI })] },
    ],
  ])('does not fire for %s', (_name, w) => {
    expect(badAmi(diagnosis(w))).toBeUndefined();
  });

  it('says which workloads it left out when it fires', () => {
    const b = badAmi(
      diagnosis({
        claims: [old1, old2, new1],
        pods: [
          webOld,
          webNew,
          billing('billing-5c-a1', 'ip-general-old01'),
          billing('billing-5c-b2', 'ip-general-new01'),
          pod({ namespace: 'jobs', name: 'report-x1', nodeName: 'ip-general-new01', ...crashing }),
        ],
      }),
    )!;
    expect(b.message).toContain('1 pod of 1 workload failing on 1 node');
    expect(b.evidence.slice(1, 3)).toEqual([
      'not counted, failing on old-AMI nodes too (their own trouble): payments/ReplicaSet/billing-5c',
      'not counted, no pod on an old-AMI node to compare with: jobs/Pod/report-x1',
    ]);
  });
});

describe('while the target AMI fails', () => {
  // old1 holds a pod under a PDB that allows no eviction; old2 a pod with do-not-disrupt; the budget allows none.
  const ledger = (nodeName: string) => pod({ name: `ledger-${nodeName.slice(-2)}`, nodeName, ready: true });
  const held: World = {
    claims: [old1, old2, new1],
    pods: [ledger('ip-general-old01'), pod({ name: 'train-0', nodeName: 'ip-general-old02', doNotDisrupt: 'true' })],
    pdbs: [pdb()],
  };
  const failing: World = { ...held, pods: [...held.pods!, webOld, webNew] };

  it('comes ahead of PDB and terminationGracePeriod advice, which keep their evidence but say to leave them', () => {
    const before = diagnosis(held);
    const after = diagnosis(failing);
    expect(codes(before)).toEqual(['STALL-DO-NOT-DISRUPT', 'STALL-PDB', 'STALL-NO-TGP']);
    expect(codes(after)).toEqual(['STALL-BAD-AMI', 'STALL-DO-NOT-DISRUPT', 'STALL-PDB', 'STALL-NO-TGP']);
    for (const [b, a] of before.map((b, i) => [b, after[i + 1]!] as const)) {
      expect({ ...a, next: b.next }).toEqual(b); // the same finding, evidence and all
      expect(b.next).not.toContain('rollback');
    }
    expect(after.slice(1).map((b) => b.next)).toEqual([
      `Leave it while the target AMI of EC2NodeClass "default" fails (STALL-BAD-AMI): removing karpenter.sh/do-not-disrupt would let drift put more nodes on that AMI. Roll back first: ${ROLLBACK}`,
      `Leave it while the target AMI of EC2NodeClass "default" fails (STALL-BAD-AMI): relaxing the PDB or its unhealthyPodEvictionPolicy would let drift put more nodes on that AMI. Roll back first: ${ROLLBACK}`,
      `Leave it while the target AMI of EC2NodeClass "default" fails (STALL-BAD-AMI): setting terminationGracePeriod (a change that itself drifts every NodeClaim of the NodePool) would let drift put more nodes on that AMI. Roll back first: ${ROLLBACK}`,
    ]);
  });

  it('rewords the budget’s advice too, and leaves another class’s findings alone', () => {
    const twoClasses = scope({
      nodePools: [
        { name: 'general', nodeClass: 'default' },
        { name: 'gpu', nodeClass: 'gpu' },
      ],
      targetImageIds: { default: ['ami-new'], gpu: ['ami-new-gpu'] },
      nodeClassGenerations: { default: 2, gpu: 2 },
    });
    const gpuOld = nodeClaim({ name: 'gpu-old01', nodePool: 'gpu', nodeClass: 'gpu', drifted: true });
    const blockers = diagnosis({
      claims: [old1, old2, new1, gpuOld],
      pods: [webOld, webNew, ledger('ip-gpu-old01')],
      pdbs: [pdb()],
      nodePools: [nodePool({ budgets: [{ nodes: '0' }] }), nodePool({ name: 'gpu', nodeClass: 'gpu' })],
      scope: twoClasses,
    });
    expect(blockers.map((b) => `${b.code} ${b.nodePool ?? b.nodeClass}`)).toEqual([
      'STALL-BAD-AMI default',
      'STALL-BUDGET general',
      'STALL-PDB gpu',
      'STALL-NO-TGP gpu',
    ]);
    expect(blockers[1]!.next).toBe(
      `Leave it while the target AMI of EC2NodeClass "default" fails (STALL-BAD-AMI): allowing more Drifted disruptions would let drift put more nodes on that AMI. Roll back first: ${ROLLBACK}`,
    );
    expect(blockers[2]!.next).toMatch(/^Let PDB payments\/ledger allow an eviction/);
    expect(blockers[3]!.next).toMatch(/^Remove what holds them/);
  });
});
