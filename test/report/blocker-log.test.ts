// A stalled rollout in a CI log (stderr not a terminal), where one NodePool has several blockers of one code: two PDBs
// ("payments/ledger" and "payments/audit"), each holding a pod on the NodePool's last drifted node, while Karpenter
// publishes its DisruptionBlocked every pass. Each blocker is printed once and again only when its evidence changes
// (docs/upgrading.md, "Without a terminal (a CI log)…"); keyed by code and NodePool alone, the two overwrote each other's record
// and both were printed on every turn: 82,375 lines (9.4 MB) in 15 minutes (issue 35).
import { describe, expect, it } from 'vitest';
import type { PdbView } from '../../src/karpenter/views.js';
import {
  followLogText,
  newProgressLog,
  unreportedBlockers,
  type ReportedBlockers,
} from '../../src/report/progress.js';
import { diagnose, type Blocker } from '../../src/rollout/stalls.js';
import { track, type RolloutProgress } from '../../src/rollout/track.js';
import { T0, event, iso, members, nodeClaim, nodePool, pdb, pod, scope, snapshotOf } from '../rollout/factories.js';

const claims = members(
  nodeClaim({ name: 'general-old01', drifted: true }),
  nodeClaim({ name: 'general-new01', imageId: 'ami-new' }),
  nodeClaim({ name: 'general-new02', imageId: 'ami-new' }),
);
const ledger = pdb();
const audit = pdb({ name: 'audit', selector: { matchLabels: { app: 'audit' } } });
const pods = [
  pod({ nodeName: 'ip-general-old01' }),
  pod({ name: 'audit-0', labels: { app: 'audit' }, nodeName: 'ip-general-old01' }),
];
const second = (s: number) => new Date(T0.getTime() + s * 1000);

/** Karpenter's DisruptionBlocked on the node and its NodeClaim, published every pass (count and time move on). */
function blockedEvents(now: Date, seconds: number) {
  const message = 'Pdb prevents pod evictions (PodDisruptionBudget=[payments/ledger])';
  const on = { message, type: 'Normal', count: seconds + 1, firstTimestamp: iso(T0), lastTimestamp: iso(now) };
  return [
    event({ uid: 'ev-node', involvedKind: 'Node', involvedName: 'ip-general-old01', ...on }),
    event({ uid: 'ev-claim', involvedKind: 'NodeClaim', involvedName: 'general-old01', ...on }),
  ];
}

function diagnosis(now: Date, seconds: number, pdbs: PdbView[]): Blocker[] {
  const snapshot = snapshotOf({ ...claims, events: blockedEvents(now, seconds) });
  return diagnose(snapshot, { scope: scope(), nodePools: [nodePool()], pdbs, pods, karpenterApi: 'v1' }, now);
}

/**
 * The log of a run that stands still for `minutes`, a turn a second as the follow loop takes them, each turn printing
 * what `upgrade` prints without a terminal (follow-report.ts): the NodePools' changed lines, then the new blockers.
 * The diagnosis is taken on every turn, harsher than the follow's every 30 s. `pdbsAt` gives the PDBs at each second.
 */
function stalledLog(minutes: number, pdbsAt: (seconds: number) => PdbView[]): string {
  const log = newProgressLog();
  const reported: ReportedBlockers = new Map();
  const snapshot = snapshotOf(claims);
  let progress: RolloutProgress | undefined;
  let text = '';
  for (let s = 0; s <= minutes * 60; s++) {
    const now = second(s);
    progress = track(progress, snapshot, scope(), now);
    const fresh = unreportedBlockers(diagnosis(now, s, pdbsAt(s)), reported);
    text += followLogText(log, progress, fresh, now);
  }
  return text;
}

const headers = (text: string) => text.match(/^\[\S+\] STALL-PDB: .*$/gm) ?? [];

describe('a stalled rollout with two PDBs on one NodePool, in a CI log', () => {
  it('15 minutes print each PDB once: a bounded log, not a pair per second', () => {
    const text = stalledLog(15, () => [ledger, audit]);
    expect(headers(text)).toEqual([
      '[0s] STALL-PDB: PDB "payments/ledger" prevents pod evictions on 1 drifted node (NodePool general)',
      '[0s] STALL-PDB: PDB "payments/audit" prevents pod evictions on 1 drifted node (NodePool general)',
    ]);
    // The NodePool's line, the two PDB blocks and STALL-NO-TGP: every line of the 15 minutes.
    expect(text.split('\n').length - 1).toBeLessThanOrEqual(20);
  });

  it('prints a PDB again when its own evidence changes, and only that PDB', () => {
    // At 7 minutes audit's pod is counted unhealthy by its PDB; at 9 it is healthy again.
    const unhealthy = { ...audit, currentHealthy: 0 };
    const text = stalledLog(15, (s) => [ledger, s >= 420 && s < 540 ? unhealthy : audit]);
    expect(headers(text).map((h) => h.replace(/ prevents.*/, ''))).toEqual([
      '[0s] STALL-PDB: PDB "payments/ledger"',
      '[0s] STALL-PDB: PDB "payments/audit"',
      '[7m] STALL-PDB: PDB "payments/audit"',
      '[9m] STALL-PDB: PDB "payments/audit"',
    ]);
  });
});

describe('blockers of one identity', () => {
  const blocker = (pdbName: string, evidence = 'disruptionsAllowed 0'): Blocker => ({
    code: 'STALL-PDB',
    nodePool: 'general',
    message: `PDB "payments/${pdbName}" prevents pod evictions on 1 drifted node (NodePool general)`,
    evidence: [`PDB payments/${pdbName}: ${evidence}`],
    next: `Let PDB payments/${pdbName} allow an eviction`,
  });
  const [a, b] = [blocker('ledger'), blocker('audit')];
  const a2 = blocker('ledger', 'disruptionsAllowed 0 (currentHealthy 0)');

  // Each diagnosis in turn, and how many blockers each reports.
  it.each<[string, Blocker[][], number[]]>([
    ['two of one NodePool: each once', [[a, b], [a, b], [b, a]], [2, 0, 0]],
    ['one of two changes: only it', [[a, b], [a2, b]], [2, 1]],
    ['back to what it was: news again', [[a, b], [a2, b], [a, b]], [2, 1, 1]],
    ['the same finding twice in one diagnosis: once', [[a, a]], [1]],
    ['a diagnosis without the identity keeps its record', [[a, b], [], [a, b]], [2, 0, 0]],
    ['a second blocker joins: only it', [[a], [a, b], [a, b]], [1, 1, 0]],
  ])('%s', (_name, diagnoses, expected) => {
    const reported: ReportedBlockers = new Map();
    expect(diagnoses.map((d) => unreportedBlockers(d, reported).length)).toEqual(expected);
  });
});
