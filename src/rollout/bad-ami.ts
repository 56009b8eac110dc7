// STALL-BAD-AMI: the rollout stands still because the target AMI fails on the nodes it has replaced. It comes before
// every other finding, because the others (a PDB, a budget, do-not-disrupt, no terminationGracePeriod) describe what
// still holds the old nodes, and the usual way past them would only move more nodes onto the failing AMI.
//
// What fails is judged as the health gates judge it (replacement-health.ts): replacements not Initialized within the
// init deadline, deleted before they were Initialized (liveness), NotReady after they initialized, launches the AWS
// provider refuses for a reason of the image's (karpenter/lifecycle.ts); pods on target nodes held back by the kubelet,
// restarting, or not Ready in time. It is the AMI's fault only by contrast with the nodes still on the old AMI, since
// the diagnosis has no baseline from before the rollout as the gates have: nothing counts for a class with no old node
// left Ready, and a workload counts only when it runs Ready on an old node and fails on none (one failing there too
// is its own trouble, as the gates' baseline excuses it; one with no pod on an old node cannot be told apart).
import { IMAGE_LAUNCH_REASONS } from '../karpenter/lifecycle.js';
import type { NodeClaimView, PodView } from '../karpenter/views.js';
import { humanDuration, plural } from '../text/words.js';
import type { Blocker, Facts, StallCode } from './blocker.js';
import { listed, quotes } from './evidence.js';
import { rollbackCommand } from './readiness.js';
import {
  DEFAULT_HEALTH_LIMITS,
  conditionText,
  deletedBecause,
  failingNow,
  lifetime,
  livePod,
  notReadyText,
  notYet,
  podEvidence,
  podHealth,
  replacementHealth,
  workloadOf,
  type HealthLimits,
  type PodHealth,
} from './replacement-health.js';
import { claimsByNodePool, isTrue, nodeOf, type RolloutScope } from './track.js';

type Kind = 'launch' | 'deleted' | 'not-initialized' | 'not-ready';

interface Failed {
  kind: Kind;
  claim: NodeClaimView;
  line: string;
}

interface Placed {
  claim: NodeClaimView;
  nodeClass: string;
  target: boolean;
}

interface Workload {
  failing: Array<{ pod: PodView; at: Placed; health: Extract<PodHealth, { verdict: 'failed' }> }>;
  failingOld: number;
  readyOld: number;
  oldAmis: Set<string>;
}

export function badAmiBlockers(f: Facts, limits: HealthLimits = DEFAULT_HEALTH_LIMITS): Blocker[] {
  const { scope } = f.context;
  const byPool = claimsByNodePool(f.snapshot);
  const placed = new Map<string, Placed>();
  for (const { name, nodeClass } of scope.nodePools) {
    const targets = scope.targetImageIds[nodeClass] ?? [];
    for (const claim of byPool.get(name) ?? [])
      if (claim.nodeName !== undefined && claim.imageId !== undefined)
        placed.set(claim.nodeName, { claim, nodeClass, target: targets.includes(claim.imageId) });
  }
  const workloads = workloadsOf(f, placed, limits);
  const out: Blocker[] = [];
  for (const nodeClass of new Set(scope.nodePools.map((p) => p.nodeClass))) {
    const targets = scope.targetImageIds[nodeClass] ?? [];
    const pools = scope.nodePools.filter((p) => p.nodeClass === nodeClass).map((p) => p.name);
    const claims = pools.flatMap((p) => byPool.get(p) ?? []);
    // Old NodeClaims draining count: their nodes still run the old AMI, and their pods are the contrast too.
    const old = claims.filter((c) => c.imageId !== undefined && !targets.includes(c.imageId));
    // Nothing to tell the AMI's trouble from the cluster's: no node of the class still runs the old AMI and is Ready.
    if (targets.length === 0 || !old.some((c) => nodeOf(f.snapshot, c)?.ready === true)) continue;
    const failed = replacementsFailed(f, nodeClass, pools, claims, limits);
    const blamed = [...workloads].filter(([, w]) => w.failing.some((x) => x.at.nodeClass === nodeClass));
    const counted = blamed.filter(([, w]) => w.failingOld === 0 && w.readyOld > 0);
    if (failed.length === 0 && counted.length === 0) continue;
    out.push(blocker(f, nodeClass, pools, old, failed, blamed, counted, limits));
  }
  return out;
}

/** Per workload, its pods failing on target nodes (by the gates' judgement) and how it fares on the old AMI. */
function workloadsOf(f: Facts, placed: Map<string, Placed>, limits: HealthLimits): Map<string, Workload> {
  const out = new Map<string, Workload>();
  const of = (p: PodView) => {
    const key = workloadOf(p);
    const w = out.get(key) ?? { failing: [], failingOld: 0, readyOld: 0, oldAmis: new Set<string>() };
    out.set(key, w);
    return w;
  };
  for (const pod of f.context.pods) {
    const at = pod.nodeName !== undefined ? placed.get(pod.nodeName) : undefined;
    if (at === undefined || !livePod(pod)) continue;
    if (at.target) {
      const health = podHealth(pod, limits, f.now);
      if (health.verdict === 'failed') of(pod).failing.push({ pod, at, health });
    } else if (failingNow(pod)) of(pod).failingOld += 1;
    else if (pod.ready === true) {
      const w = of(pod);
      w.readyOld += 1;
      w.oldAmis.add(at.claim.imageId!);
    }
  }
  for (const [key, w] of out) if (w.failing.length === 0) out.delete(key);
  return out;
}

/** The class's replacements that failed, live and departed; a deletion made history by a later success is left out. */
function replacementsFailed(
  f: Facts,
  nodeClass: string,
  pools: string[],
  claims: NodeClaimView[],
  limits: HealthLimits,
): Failed[] {
  const targets = f.context.scope.targetImageIds[nodeClass] ?? [];
  const resolved = f.snapshot.nodeClasses.get(nodeClass)?.statusAmis.map((a) => a.id) ?? [];
  // A NodeClaim not launched has no imageID: it launches from the target only when the class resolves nothing else.
  const launchesTarget = resolved.length > 0 && resolved.every((id) => targets.includes(id));
  const launchRefused = (c: NodeClaimView) =>
    c.imageId === undefined &&
    launchesTarget &&
    c.conditions.Launched?.status !== 'True' &&
    IMAGE_LAUNCH_REASONS.has(c.conditions.Launched?.reason ?? '');
  const onTarget = (c: NodeClaimView) => c.imageId !== undefined && targets.includes(c.imageId);
  const succeededSince = (c: NodeClaimView) =>
    claims.some(
      (x) =>
        !x.deleting &&
        isTrue(x.conditions, 'Initialized') &&
        onTarget(x) &&
        (c.imageId === undefined || x.imageId === c.imageId) &&
        Date.parse(x.createdAt ?? '') > Date.parse(c.createdAt ?? ''),
    );
  const out: Failed[] = [];
  const gone = [...f.snapshot.departed.values()].filter(
    (c) => c.nodePool !== undefined && pools.includes(c.nodePool) && !f.snapshot.nodeClaims.has(c.name),
  );
  for (const c of [...claims.filter((x) => x.deleting), ...gone]) {
    if (isTrue(c.conditions, 'Initialized') || !(onTarget(c) || launchRefused(c)) || succeededSince(c)) continue;
    out.push({ kind: 'deleted', claim: c, line: deletedLine(c, f.now) });
  }
  for (const c of claims) {
    if (c.deleting) continue;
    if (launchRefused(c)) {
      const l = c.conditions.Launched!;
      const since = lifetime(c, f.now);
      out.push({
        kind: 'launch',
        claim: c,
        line: `NodeClaim ${c.name} (NodePool ${c.nodePool}) fails to launch from ${targets.join(', ')}: ${conditionText('Launched', l)}${since !== undefined ? ` (created ${humanDuration(since)} ago)` : ''}`,
      });
      continue;
    }
    if (!onTarget(c)) continue;
    const node = nodeOf(f.snapshot, c);
    const health = replacementHealth(c, node, limits, f.now);
    if (health.verdict !== 'failed') continue;
    const where = `NodeClaim ${c.name} (NodePool ${c.nodePool}, AMI ${c.imageId})`;
    out.push(
      health.code === 'NODE-NOT-READY'
        ? { kind: 'not-ready', claim: c, line: `node ${health.node.name} of ${where} went NotReady after it initialized: ${notReadyText(health.node)}` }
        : {
            kind: 'not-initialized',
            claim: c,
            line: `${where} is not Initialized ${humanDuration(health.waited)} after it was created: ${health.notYet.map((t) => conditionText(t, c.conditions[t])).join('; ')}${node && !node.ready ? `; node ${node.name} ${notReadyText(node)}` : ''}`,
          },
    );
  }
  return out;
}

function deletedLine(c: NodeClaimView, now: Date): string {
  const lived = lifetime(c, now);
  const last = notYet(c).map((t) => conditionText(t, c.conditions[t]));
  return `NodeClaim ${c.name} (NodePool ${c.nodePool}${c.imageId ? `, AMI ${c.imageId}` : ''}) was deleted before it was Initialized${lived !== undefined ? `, ${humanDuration(lived)} after it was created` : ''}: ${deletedBecause(c)}${last.length > 0 ? `; last seen ${last.join('; ')}` : ''}`;
}

function workloadLine([key, w]: [string, Workload]): string {
  const nodes = new Set(w.failing.map((x) => x.at.claim.nodeName));
  const amis = [...new Set(w.failing.map((x) => x.at.claim.imageId))].join(', ');
  const first = w.failing[0]!;
  const h = first.health;
  const trouble = [
    ...(h.code === 'POD-NOT-READY' ? [`not Ready ${humanDuration(h.waited)} after it was created (phase ${first.pod.phase ?? 'unknown'})`] : []),
    ...podEvidence(first.pod),
  ];
  return `workload ${key}: ${plural(w.failing.length, 'pod')} on ${plural(nodes.size, 'node')} of ${amis} failing, ${w.readyOld} Ready on the old AMI (${[...w.oldAmis].join(', ')}); e.g. pod ${first.pod.namespace}/${first.pod.name} on node ${first.at.claim.nodeName} (NodeClaim ${first.at.claim.name}): ${trouble.join('; ')}`;
}

function names(keys: string[]): string {
  return keys.length <= 5 ? keys.join(', ') : `${keys.slice(0, 5).join(', ')} and ${keys.length - 5} more`;
}

function blocker(
  f: Facts,
  nodeClass: string,
  pools: string[],
  old: NodeClaimView[],
  failed: Failed[],
  blamed: Array<[string, Workload]>,
  counted: Array<[string, Workload]>,
  limits: HealthLimits,
): Blocker {
  const count = (k: Kind) => failed.filter((x) => x.kind === k).length;
  const draining = old.filter((c) => c.deleting).length;
  const pods = counted.flatMap(([, w]) => w.failing.filter((x) => x.at.nodeClass === nodeClass));
  const parts = [
    count('launch') > 0 ? `${plural(count('launch'), 'launch', 'launches')} refused` : '',
    count('deleted') > 0 ? `${plural(count('deleted'), 'replacement')} deleted before Initialized` : '',
    count('not-initialized') > 0
      ? `${plural(count('not-initialized'), 'replacement')} not Initialized within ${humanDuration(limits.initDeadlineMs)}`
      : '',
    count('not-ready') > 0 ? `${plural(count('not-ready'), 'node')} NotReady after initializing` : '',
    pods.length > 0
      ? `${plural(pods.length, 'pod')} of ${plural(counted.length, 'workload')} failing on ${plural(new Set(pods.map((x) => x.at.claim.nodeName)).size, 'node')} while running Ready on the old AMI`
      : '',
  ].filter((s) => s !== '');
  const amis = [
    ...new Set([
      ...failed.map((x) => x.claim.imageId ?? ''),
      ...pods.map((x) => x.at.claim.imageId ?? ''),
    ]),
  ].filter((id) => id !== '');
  const shown = amis.length > 0 ? amis : (f.context.scope.targetImageIds[nodeClass] ?? []);
  const excused = blamed.filter(([, w]) => w.failingOld > 0).map(([k]) => k);
  const unclear = blamed.filter(([, w]) => w.failingOld === 0 && w.readyOld === 0).map(([k]) => k);
  const involved = new Set(failed.flatMap((x) => [x.claim.name, ...(x.claim.nodeName ? [x.claim.nodeName] : [])]));
  const registration = f.context.nodePools.flatMap((p) => {
    const c = p.conditions.NodeRegistrationHealthy;
    return pools.includes(p.name) && c?.status === 'False' ? [`NodePool ${p.name}: ${conditionText('NodeRegistrationHealthy', c)}`] : [];
  });
  return {
    code: 'STALL-BAD-AMI',
    nodeClass,
    message: `The target AMI fails on its replacements (EC2NodeClass "${nodeClass}", ${shown.join(', ')}): ${parts.join(', ')}`,
    evidence: [
      ...listed(
        failed.map((x) => x.line),
        'NodeClaims',
      ),
      ...listed(counted.map(workloadLine), 'workloads'),
      ...(excused.length > 0 ? [`not counted, failing on old-AMI nodes too (their own trouble): ${names(excused)}`] : []),
      ...(unclear.length > 0 ? [`not counted, no pod on an old-AMI node to compare with: ${names(unclear)}`] : []),
      ...registration,
      ...quotes(
        f.events.filter((e) => involved.has(e.involvedName ?? '') && (e.involvedKind === 'NodeClaim' || e.involvedKind === 'Node')),
        f.now,
      ),
      `${plural(old.length, 'node')} of ${pools.length === 1 ? 'NodePool' : 'NodePools'} ${pools.join(', ')} still ${old.length === 1 ? 'runs' : 'run'} the old AMI${draining > 0 ? ` (${draining} draining)` : ''}: drift replaces them with this one unless the class is rolled back`,
    ],
    next: `Roll the class back before drift replaces more nodes: ${rollbackCommand(nodeClass)} (it restores the AMIs the upgrade recorded and follows the nodes back). Leave PDBs, disruption budgets, do-not-disrupt and terminationGracePeriod as they are while the AMI fails: they hold the nodes still on the old AMI`,
  };
}

/** What the usual next step of each finding would loosen, letting drift move more nodes onto a failing AMI. */
const LOOSENS: Partial<Record<StallCode, string>> = {
  'STALL-NOT-DRIFTING': 'getting the remaining nodes to drift',
  'STALL-HELD': "releasing karp-drift's hold (resume, or re-running the upgrade)",
  'STALL-BUDGET': 'allowing more Drifted disruptions',
  'STALL-DO-NOT-DISRUPT': 'removing karpenter.sh/do-not-disrupt',
  'STALL-PDB': 'relaxing the PDB or its unhealthyPodEvictionPolicy',
  'STALL-NO-TGP': "setting terminationGracePeriod (a change that itself drifts every NodeClaim of the NodePool)",
  'STALL-UNSCHEDULABLE': 'making room for those pods elsewhere',
};

/**
 * While a class's target AMI fails, the findings of its NodePools keep their evidence (they say what still holds the
 * old nodes, which is what protects them now) but not their usual next step, which would let drift go on.
 */
export function holdBack(blockers: Blocker[], scope: RolloutScope): Blocker[] {
  const failing = new Set(blockers.flatMap((b) => (b.code === 'STALL-BAD-AMI' && b.nodeClass ? [b.nodeClass] : [])));
  if (failing.size === 0) return blockers;
  return blockers.map((b) => {
    const nodeClass = b.nodeClass ?? scope.nodePools.find((p) => p.name === b.nodePool)?.nodeClass;
    const loosens = LOOSENS[b.code];
    if (loosens === undefined || nodeClass === undefined || !failing.has(nodeClass)) return b;
    return {
      ...b,
      next: `Leave it while the target AMI of EC2NodeClass "${nodeClass}" fails (STALL-BAD-AMI): ${loosens} would let drift put more nodes on that AMI. Roll back first: ${rollbackCommand(nodeClass)}`,
    };
  });
}
