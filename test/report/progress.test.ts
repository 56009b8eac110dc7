// The three outputs of a followed rollout, for one scenario: twelve minutes in, NodePool "general" has replaced one
// of three nodes, has a replacement initializing and a node held by a PDB; NodePool "gpu" is done.
import { describe, expect, it } from 'vitest';
import { clusterIdentity } from '../../src/apis/cluster-identity.js';
import {
  blockedEvent,
  doneEvent,
  ndjsonLine,
  progressEvent,
  progressFrame,
  newProgressLog,
  progressLogLines,
  unreportedBlockers,
  type ReportedBlockers,
  stallSummary,
} from '../../src/report/progress.js';
import stringWidth from 'string-width';
import { diagnose, type Blocker } from '../../src/rollout/stalls.js';
import { track, type RolloutProgress } from '../../src/rollout/track.js';
import { applyChange, emptySnapshot } from '../../src/rollout/snapshot.js';
import { at, iso, members, nodeClaim, nodePool, pdb, pod, scope, snapshotOf } from '../rollout/factories.js';

const pools = [
  { name: 'general', nodeClass: 'default' },
  { name: 'gpu', nodeClass: 'default' },
];
const rollout = scope({ nodePools: pools });
const identity = clusterIdentity(
  'prod',
  'arn:aws:eks:us-west-2:111122223333:cluster/prod',
  'https://ABC.gr7.us-west-2.eks.amazonaws.com',
);
const start = members(
  nodeClaim({ name: 'general-old01' }),
  nodeClaim({ name: 'general-old02' }),
  nodeClaim({ name: 'general-old03' }),
  nodeClaim({ name: 'gpu-old01', nodePool: 'gpu' }),
);
const middle = members(
  nodeClaim({ name: 'general-old02', drifted: true, disruptionReason: true }),
  nodeClaim({ name: 'general-old03', drifted: true }),
  nodeClaim({ name: 'general-new01', imageId: 'ami-new' }),
  nodeClaim({ name: 'general-new02', imageId: 'ami-new', phase: 'registered', launchedAt: at(8) }),
  nodeClaim({ name: 'gpu-new01', nodePool: 'gpu', imageId: 'ami-new' }),
);

const snapshot = snapshotOf(start);
const first = track(undefined, snapshot, rollout, at(1));
applyChange(snapshot, { type: 'synced', kind: 'NodeClaim', items: middle.nodeClaims });
applyChange(snapshot, { type: 'synced', kind: 'Node', items: middle.nodes });
const progress = track(first, snapshot, rollout, at(9));
const blockers = diagnose(
  snapshot,
  {
    scope: rollout,
    nodePools: [nodePool(), nodePool({ name: 'gpu' })],
    pdbs: [pdb()],
    pods: [pod({ nodeName: 'ip-general-old03' })],
    karpenterApi: 'v1',
  },
  at(12),
);

const frame = (lines: string[]) => `${lines.join('\n')}\n`;

describe('terminal frame', () => {
  it('with --window: the header says when the open window closes, the point past which the ETA will not be met', () => {
    const [header] = progressFrame(progress, blockers, at(12, 5), { windowClosesAt: at(40) });
    expect(header).toBe(`Drift to Kubernetes 1.30: 12m elapsed, no progress for 3m5s; window closes in 27m (${iso(at(40)).slice(11, 16)} UTC)`);
    expect(progressFrame(progress, blockers, at(12, 5))[0]).toBe('Drift to Kubernetes 1.30: 12m elapsed, no progress for 3m5s');
  });

  it('draws a bar, the counts and the first blocker per NodePool', () => {
    expect(frame(progressFrame(progress, blockers, at(12, 5)))).toMatchInlineSnapshot(`
      "Drift to Kubernetes 1.30: 12m elapsed, no progress for 3m5s
      general  [███████░░░░░░░░░░░░░]  1/3 replaced  2 drifted  1 disrupting  1 initializing
               STALL-PDB: PDB "payments/ledger" prevents pod evictions on 1 drifted node (NodePool general)
      gpu      [████████████████████]  1/1 replaced  done
      "
    `);
  });

  it('colours done and blockers when asked', () => {
    expect(frame(progressFrame(progress, blockers, at(12, 5), { color: true }))).toMatchInlineSnapshot(`
      "Drift to Kubernetes 1.30: 12m elapsed, no progress for 3m5s
      general  [███████░░░░░░░░░░░░░]  1/3 replaced  2 drifted  1 disrupting  1 initializing
               [33mSTALL-PDB: PDB "payments/ledger" prevents pod evictions on 1 drifted node (NodePool general)[0m
      gpu      [████████████████████]  1/1 replaced  [32mdone[0m
      "
    `);
  });

  it('waits for the first lists', () => {
    expect(frame(progressFrame(track(undefined, emptySnapshot(), rollout, at(0, 2)), [], at(0, 2))))
      .toMatchInlineSnapshot(`
      "Drift to Kubernetes 1.30: 2s elapsed
      Waiting for the first list of NodeClaims and Nodes...
      "
    `);
  });

  it('says where a NodePool stands when nothing was left to replace (a re-run), not "0/0 replaced"', () => {
    const rolled = members(
      nodeClaim({ name: 'general-new01', imageId: 'ami-new' }),
      nodeClaim({ name: 'general-new02', imageId: 'ami-new' }),
    );
    const again = track(undefined, snapshotOf(rolled), rollout, at(0, 5));
    expect(frame(progressFrame(again, [], at(0, 5)))).toMatchInlineSnapshot(`
      "Drift to Kubernetes 1.30: 5s elapsed
      general  [████████████████████]  2/2 already on target  done
      gpu      [████████████████████]  no nodes  done
      "
    `);
  });

  it('fits an 80-column screen: the counts get a line of their own, the blocker is cut', () => {
    expect(frame(progressFrame(progress, blockers, at(12, 5), { screen: { columns: 80, rows: 24 } })))
      .toMatchInlineSnapshot(`
      "Drift to Kubernetes 1.30: 12m elapsed, no progress for 3m5s
      general  [███████░░░░░░░░░░░░░]  1/3 replaced
               2 drifted  1 disrupting  1 initializing
               STALL-PDB: PDB "payments/ledger" prevents pod evictions on 1 drifted n…
      gpu      [████████████████████]  1/1 replaced  done
      "
    `);
  });

  it('cuts a coloured line without counting its escape codes', () => {
    const lines = progressFrame(progress, blockers, at(12, 5), { color: true, screen: { columns: 80, rows: 24 } });
    expect(JSON.stringify(lines[3])).toMatchInlineSnapshot(
      `""         \\u001b[33mSTALL-PDB: PDB \\"payments/ledger\\" prevents pod evictions on 1 drifted n…\\u001b[39m""`,
    );
  });

  it('fits a narrow screen', () => {
    expect(frame(progressFrame(progress, blockers, at(12, 5), { screen: { columns: 40, rows: 24 } })))
      .toMatchInlineSnapshot(`
        "Drift to Kubernetes 1.30: 12m elapsed, …
        general  [███░░░░░░]  1/3 replaced
          2 drifted  1 disrupting  1 initializi…
                 STALL-PDB: PDB "payments/ledge…
        gpu      [█████████]  1/1 replaced  done
        "
      `);
  });

  it('fits a short screen: NodePools still rolling first, then how many more', () => {
    expect(frame(progressFrame(progress, blockers, at(12, 5), { screen: { columns: 120, rows: 5 } })))
      .toMatchInlineSnapshot(`
      "Drift to Kubernetes 1.30: 12m elapsed, no progress for 3m5s
      general  [███████░░░░░░░░░░░░░]  1/3 replaced  2 drifted  1 disrupting  1 initializing
               STALL-PDB: PDB "payments/ledger" prevents pod evictions on 1 drifted node (NodePool general)
      gpu      [████████████████████]  1/1 replaced  done
      "
    `);
  });

  it.each([
    [80, 24],
    [80, 3],
    [40, 10],
    [20, 2],
    [200, 50],
  ])('never takes more than the screen: %d×%d', (columns, rows) => {
    const many = scope({
      nodePools: Array.from({ length: 30 }, (_, i) => ({ name: `pool-with-a-long-name-${i}`, nodeClass: 'default' })),
    });
    const lines = progressFrame(track(undefined, snapshotOf(start), many, at(1)), [], at(30), {
      screen: { columns, rows },
    });
    expect(lines.length).toBeLessThanOrEqual(Math.max(1, rows - 1));
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
    expect(lines[0]).toMatch(/^Drift to/);
    if (rows - 1 >= 2 && rows - 1 < 31) expect(lines.at(-1)).toMatch(/^… \d+ more NodePools \(\d+ done\)$/);
    else if (rows - 1 >= 31) expect(lines).toHaveLength(31);
  });
});

describe('blocker reports', () => {
  const pdbBlocker = blockers[0]!;
  const moved = { ...pdbBlocker, evidence: [...pdbBlocker.evidence, 'pod payments/ledger-1 on node ip-general-old02'] };
  const later = {
    ...pdbBlocker,
    message: `${pdbBlocker.message} 12m after the change`,
    evidence: [...pdbBlocker.evidence, 'event DisruptionBlocked on NodePool/general (2m ago, x3 over 9m): "budget"'],
  };
  const laterStill = {
    ...later,
    message: `${pdbBlocker.message} 14m after the change`,
    evidence: [...pdbBlocker.evidence, 'event DisruptionBlocked on NodePool/general (30s ago, x5 over 11m): "budget"'],
  };
  it.each([
    ['a new blocker is reported', [], [pdbBlocker], 1],
    ['the same blocker again is not', [pdbBlocker], [pdbBlocker], 0],
    ['new evidence is', [pdbBlocker], [moved], 1],
    ['only the clock moved: not again', [later], [laterStill], 0],
    [
      'only a crash-looping container restarted again: not again',
      [{ ...pdbBlocker, evidence: ['pod shop/web-1: container web: CrashLoopBackOff; 7 restarts'] }],
      [{ ...pdbBlocker, evidence: ['pod shop/web-1: container web: CrashLoopBackOff; 9 restarts'] }],
      0,
    ],
    ['another NodePool is another blocker', [pdbBlocker], [{ ...pdbBlocker, nodePool: 'gpu' }], 1],
  ])('%s', (_name, before: Blocker[], now: Blocker[], expected) => {
    const reported: ReportedBlockers = new Map();
    unreportedBlockers(before, reported);
    expect(unreportedBlockers(now, reported)).toHaveLength(expected);
  });
});

describe('log lines', () => {
  const general = (message: string) => ({ ...progress.nodePools[0]!, message });
  const gpuRolling = {
    ...progress.nodePools[1]!,
    done: false,
    message: 'Waiting for NodePool "gpu" drift: 0 of 1 nodes replaced...',
  };
  const state = (pools: RolloutProgress['nodePools'], done = false): RolloutProgress => ({
    ...progress,
    nodePools: pools,
    done,
  });
  const second = (s: number) => new Date(at(9).getTime() + s * 1000);

  it('prints a line per NodePool whose status changed', () => {
    const log = newProgressLog();
    expect(progressLogLines(log, first, at(1))).toMatchInlineSnapshot(`
      "[60s] Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 3 nodes not drifted yet...
      [60s] Waiting for NodePool "gpu" drift: 0 of 1 nodes replaced, 1 node not drifted yet...
      "
    `);
    expect(progressLogLines(log, progress, at(9))).toMatchInlineSnapshot(`
      "[9m] Waiting for NodePool "general" drift: 1 of 3 nodes replaced, 1 replacement initializing, 1 drifted node waiting for disruption...
      [9m] NodePool "gpu" successfully rolled out: 1 node on the target AMIs with kubelet 1.30
      "
    `);
  });

  it('prints nothing when nothing changed', () => {
    const log = newProgressLog();
    progressLogLines(log, progress, at(9));
    expect(progressLogLines(log, { ...progress, at: at(10) }, at(10))).toBe('');
  });

  // A sequence of readings of one rollout, each [seconds after the first, the state, what the log prints then].
  it.each<[string, Array<[number, RolloutProgress, string[]]>]>([
    [
      'a NodePool that changes every second prints its newest line every 10 s, not every change',
      [
        [0, state([general('general: 1 of 9'), gpuRolling]), ['[9m] general: 1 of 9', `[9m] ${gpuRolling.message}`]],
        [1, state([general('general: 2 of 9'), gpuRolling]), []],
        [5, state([general('general: 3 of 9'), gpuRolling]), []],
        [9, state([general('general: 4 of 9'), gpuRolling]), []],
        [10, state([general('general: 5 of 9'), gpuRolling]), ['[9m10s] general: 5 of 9']],
        [11, state([general('general: 6 of 9'), gpuRolling]), []],
        [21, state([general('general: 6 of 9'), gpuRolling]), ['[9m21s] general: 6 of 9']],
      ],
    ],
    [
      "a NodePool's done line is printed at once, however soon after its last line",
      [
        [0, state([general('general: 1 of 9'), gpuRolling]), ['[9m] general: 1 of 9', `[9m] ${gpuRolling.message}`]],
        [2, state([general('general: 2 of 9'), progress.nodePools[1]!]), [`[9m2s] ${progress.nodePools[1]!.message}`]],
      ],
    ],
    [
      'the rollout done: every NodePool done line at once, then the rollout line once',
      [
        [0, state([general('general: 8 of 9'), gpuRolling]), ['[9m] general: 8 of 9', `[9m] ${gpuRolling.message}`]],
        [
          1,
          state(
            [{ ...general('NodePool "general" successfully rolled out'), done: true }, progress.nodePools[1]!],
            true,
          ),
          [
            '[9m1s] NodePool "general" successfully rolled out',
            `[9m1s] ${progress.nodePools[1]!.message}`,
            `[9m1s] ${progress.message}`,
          ],
        ],
        [
          2,
          state(
            [{ ...general('NodePool "general" successfully rolled out'), done: true }, progress.nodePools[1]!],
            true,
          ),
          [],
        ],
      ],
    ],
    [
      'before the first list, its message once',
      [
        [0, { ...first, synced: false, message: 'Listing NodeClaims...' }, ['[9m] Listing NodeClaims...']],
        [1, { ...first, synced: false, message: 'Listing NodeClaims...' }, []],
      ],
    ],
  ])('%s', (_name, readings) => {
    const log = newProgressLog();
    const printed = readings.map(([s, p]) => progressLogLines(log, { ...p, startedAt: at(0) }, second(s)));
    expect(printed).toEqual(readings.map(([, , lines]) => lines.map((l) => `${l}\n`).join('')));
  });
});

describe('NDJSON events', () => {
  it('progress, blocked and done, each with type and time first', () => {
    expect(ndjsonLine(progressEvent(progress, at(9)))).toMatchInlineSnapshot(`
      "{"type":"progress","time":"2025-08-20T14:09:00.000Z","elapsedSeconds":540,"message":"Waiting for NodePool \\"general\\" drift: 1 of 3 nodes replaced, 1 replacement initializing, 1 drifted node waiting for disruption...","nodePools":[{"name":"general","nodeClass":"default","total":4,"onTarget":1,"replaced":1,"remaining":2,"drifted":2,"disrupting":1,"launching":0,"initializing":1,"terminating":0,"done":false,"message":"Waiting for NodePool \\"general\\" drift: 1 of 3 nodes replaced, 1 replacement initializing, 1 drifted node waiting for disruption..."},{"name":"gpu","nodeClass":"default","total":1,"onTarget":1,"replaced":1,"remaining":0,"drifted":0,"disrupting":0,"launching":0,"initializing":0,"terminating":0,"done":true,"message":"NodePool \\"gpu\\" successfully rolled out: 1 node on the target AMIs with kubelet 1.30"}]}
      "
    `);
    expect(ndjsonLine(blockedEvent(blockers[0]!, 'early', at(12)))).toMatchInlineSnapshot(`
      "{"type":"blocked","time":"2025-08-20T14:12:00.000Z","stage":"early","code":"STALL-PDB","nodePool":"general","message":"PDB \\"payments/ledger\\" prevents pod evictions on 1 drifted node (NodePool general)","evidence":["PDB payments/ledger: disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1)","pod payments/ledger-0 on node ip-general-old03 (NodeClaim general-old03)"],"next":"Let PDB payments/ledger allow an eviction: scale out what it protects or relax minAvailable/maxUnavailable (kubectl get pdb ledger -n payments -o yaml)"}
      "
    `);
    expect(ndjsonLine(doneEvent('stalled', progress, identity, at(25)))).toMatchInlineSnapshot(`
      "{"type":"done","time":"2025-08-20T14:25:00.000Z","result":"stalled","cluster":{"context":"prod","server":"https://ABC.gr7.us-west-2.eks.amazonaws.com","kubeconfigCluster":"arn:aws:eks:us-west-2:111122223333:cluster/prod","name":"prod"},"durationSeconds":1500,"message":"Waiting for NodePool \\"general\\" drift: 1 of 3 nodes replaced, 1 replacement initializing, 1 drifted node waiting for disruption...","nodePools":[{"name":"general","nodeClass":"default","total":4,"onTarget":1,"replaced":1,"remaining":2,"drifted":2,"disrupting":1,"launching":0,"initializing":1,"terminating":0,"done":false},{"name":"gpu","nodeClass":"default","total":1,"onTarget":1,"replaced":1,"remaining":0,"drifted":0,"disrupting":0,"launching":0,"initializing":0,"terminating":0,"done":true}]}
      "
    `);
  });
});

describe('stall summary (exit 4)', () => {
  it('says how long nothing moved, where each NodePool stands, and the diagnosis', () => {
    expect(stallSummary(progress, blockers, at(25))).toMatchInlineSnapshot(`
      "Rollout stalled: no progress for 16m (since 2025-08-20T14:09:00Z)
        Waiting for NodePool "general" drift: 1 of 3 nodes replaced, 1 replacement initializing, 1 drifted node waiting for disruption...

      STALL-PDB: PDB "payments/ledger" prevents pod evictions on 1 drifted node (NodePool general)
        - PDB payments/ledger: disruptionsAllowed 0 (currentHealthy 1, desiredHealthy 1, expectedPods 1)
        - pod payments/ledger-0 on node ip-general-old03 (NodeClaim general-old03)
        next: Let PDB payments/ledger allow an eviction: scale out what it protects or relax minAvailable/maxUnavailable (kubectl get pdb ledger -n payments -o yaml)

      STALL-NO-TGP: 1 blocked NodeClaim without terminationGracePeriod can stay blocked forever (NodePool general)
        - NodeClaim general-old03 has no spec.terminationGracePeriod
        - a NodeClaim copies terminationGracePeriod when it is created and its spec is immutable: a NodePool change helps only NodeClaims created after it
        next: Remove what holds them (the other blockers of this NodePool); for the next rollout set spec.template.spec.terminationGracePeriod on NodePool "general" (e.g. 24h), after which drift evicts past PDBs and do-not-disrupt (the change itself drifts the NodePool's NodeClaims: NodePoolDrifted)
      "
    `);
  });

  it('says so when no blocker is known', () => {
    expect(stallSummary(progress, [], at(25))).toMatchInlineSnapshot(`
      "Rollout stalled: no progress for 16m (since 2025-08-20T14:09:00Z)
        Waiting for NodePool "general" drift: 1 of 3 nodes replaced, 1 replacement initializing, 1 drifted node waiting for disruption...

      No known blocker found.
        next: kubectl get nodeclaims -o wide; kubectl get events -A --field-selector reason=DisruptionBlocked
      "
    `);
  });
});
