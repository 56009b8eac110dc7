// What a stage must have tested before the next one begins: each target AMI its old nodes move onto (one per
// NodePool's family, arch and variant), on at least one drift replacement of the stage that is Initialized and Ready
// and runs a pod the workloads gate judges, Ready, not a DaemonSet's: a node that runs DaemonSet pods alone, or one
// Karpenter launched for pending pods (a scale-up), has carried no workload the stage moved. Drift takes empty
// candidates first and deletes an empty node without a replacement (kubernetes-sigs/karpenter v1.14.1
// `disruption/drift.go`), so a canary of empty nodes would count its nodes as started and pass with nothing replaced.
// The plan says so (`CANARY-EMPTY`, refused), and a stage that ends untested anyway (its pods moved away since) halts
// at its last checkpoint (`STAGE-UNTESTED`), as does a `1/ami` wave whose replacement of an AMI tests nothing. Pure.
import { nodesWithReschedulablePods } from '../karpenter/disruptable.js';
import type { Inventory, NodeClaimView, NodeView, PodView } from '../karpenter/views.js';
import { check, type Check } from '../plan/checks.js';
import type { Plan } from '../plan/plan.js';
import { targetOf } from '../plan/targets.js';
import { plural } from '../text/words.js';
import { listed } from '../rollout/evidence.js';
import { livePod, workloadOf } from '../rollout/replacement-health.js';
import type { GateFinding } from './health.js';

/** A target AMI of a stage, and the stage's old nodes that move onto it, per NodePool. */
export interface StageAmi {
  id: string;
  /** `al2023 amd64 standard`: the family, arch and variant. */
  label: string;
  nodePools: Array<{
    name: string;
    oldNodes: number;
    /** Nodes with no pod but DaemonSet and static pods: Karpenter deletes them without a replacement. */
    emptyNodes: string[];
  }>;
}

/** Old nodes on it that run pods: a replacement will take them. */
export const withPods = (a: StageAmi): number => a.nodePools.reduce((n, p) => n + p.oldNodes - p.emptyNodes.length, 0);

/** The target AMIs the stage's old nodes move onto, from the plan and the pods the inventory read. */
export function stageAmis(
  plan: Pick<Plan, 'nodeClasses' | 'nodePools'>,
  inventory: Pick<Inventory, 'nodeClaims' | 'pods'>,
  nodePools: readonly string[],
): StageAmi[] {
  const claims = new Map(inventory.nodeClaims.map((c) => [c.name, c]));
  const busy = nodesWithReschedulablePods(inventory.pods);
  const out = new Map<string, StageAmi>();
  for (const name of nodePools) {
    const pool = plan.nodePools.find((p) => p.name === name);
    const nodeClass = plan.nodeClasses.find((c) => c.name === pool?.nodeClass);
    if (pool === undefined || nodeClass === undefined) continue;
    for (const d of pool.drifting) {
      const claim = claims.get(d.nodeClaim);
      // Karpenter disrupts only a NodeClaim with a Node.
      if (claim === undefined || d.node === undefined) continue;
      const target = targetOf(claim, nodeClass.family, nodeClass.targets);
      if (target === undefined) continue;
      const ami = out.get(target.id) ?? {
        id: target.id,
        label: `${nodeClass.family} ${target.arch} ${target.variant}`,
        nodePools: [],
      };
      out.set(target.id, ami);
      let entry = ami.nodePools.find((p) => p.name === name);
      if (entry === undefined) ami.nodePools.push((entry = { name, oldNodes: 0, emptyNodes: [] }));
      entry.oldNodes += 1;
      if (!busy.has(d.node)) entry.emptyNodes.push(d.node);
    }
  }
  return [...out.values()];
}

/**
 * The canary can test a target AMI only with replacements: where every canary node that moves onto it is empty,
 * Karpenter deletes them and the canary passes having tested nothing. An error: the run is refused (exit 3).
 */
export function canaryChecks(
  canary: readonly StageAmi[],
  later: readonly StageAmi[],
  canaryPools: readonly string[],
): Check[] {
  const untestable = canary.filter((a) => withPods(a) === 0 && a.nodePools.length > 0);
  if (untestable.length === 0) return [];
  const all = untestable.length === canary.length;
  const flag = canaryPools.map((p) => `--canary ${p}`).join(' ');
  return untestable.map((a) => {
    const elsewhere = later
      .filter((l) => l.id === a.id)
      .flatMap((l) => l.nodePools)
      .filter((p) => p.oldNodes > p.emptyNodes.length);
    return check(
      'CANARY-EMPTY',
      'error',
      all
        ? `${flag}: every old node of the canary is empty, so it can only delete them: Karpenter deletes an empty drifted node without a replacement, and the canary would test nothing on ${a.label} AMI ${a.id}`
        : `${flag}: the canary's old nodes that move onto ${a.label} AMI ${a.id} are all empty: Karpenter deletes them without a replacement, so the canary would not test that AMI`,
      [
        ...listed(
          a.nodePools.flatMap((p) => p.emptyNodes.map((n) => `node ${n} (nodepool/${p.name}): no pod but DaemonSet and static pods`)),
          'empty nodes',
        ),
        ...elsewhere.map(
          (p) => `nodepool/${p.name} (a later stage): ${plural(p.oldNodes - p.emptyNodes.length, 'old node')} with pods would get it untested`,
        ),
      ],
      elsewhere.length > 0
        ? `name a canary NodePool whose nodes run pods on that AMI, e.g. --canary ${elsewhere[0]!.name}, or schedule pods onto the canary's nodes`
        : 'name a canary NodePool whose nodes run pods, or schedule pods onto the canary\'s nodes',
    );
  });
}

/** What one NodeClaim of the stage on a target AMI shows of it: `tested`, or why not. */
export interface AmiTrial {
  nodeClaim: string;
  node?: string;
  nodePool: string;
  /** Launched by Karpenter for a drift command (gates/attempts.ts `isDriftReplacement`), not for pending pods. */
  drift: boolean;
  state: 'tested' | 'scale-up' | 'deleting' | 'not Initialized' | 'NotReady' | 'no pod';
  /** Its DaemonSet pods, the only ones it runs when `no pod`. */
  daemonSetPods: number;
}

export interface CoverageLook {
  claims: Iterable<NodeClaimView>;
  nodes: ReadonlyMap<string, NodeView>;
  /** At least the pods on the nodes of the NodeClaims on a target AMI (the gates' reads). */
  pods: readonly PodView[];
  /** Whether Karpenter launched this NodeClaim for a drift command (gates/attempts.ts `isDriftReplacement`). */
  drift: (claim: NodeClaimView) => boolean;
  /** Workloads already failing before the rollout: the workloads gate leaves them out, so they test nothing. */
  failingWorkloads: ReadonlySet<string>;
}

/**
 * A pod that tests the AMI of its node: one the workloads gate judges (health.ts: live, not a static pod, its workload
 * not failing at the baseline), no DaemonSet's (a DaemonSet runs on every node, an empty one too), and Ready.
 */
const testsAmi = (p: PodView, failing: ReadonlySet<string>): boolean =>
  livePod(p) && !p.daemonSet && p.ready === true && !failing.has(workloadOf(p));

/**
 * Each target AMI's NodeClaims in the stage's NodePools and what each shows. An AMI is tested by a drift replacement
 * that is Initialized, its Node Ready, running a pod that tests it: not by a scale-up (Karpenter's provisioner launched
 * it for pending pods, which the stage did not move), nor by a replacement whose old node's pods went elsewhere.
 */
export function amiTrials(
  look: CoverageLook,
  nodePools: ReadonlySet<string>,
  amis: ReadonlySet<string>,
): Map<string, AmiTrial[]> {
  const claims = [...look.claims].filter(
    (c) => c.imageId !== undefined && amis.has(c.imageId) && c.nodePool !== undefined && nodePools.has(c.nodePool),
  );
  const onNode = new Map<string, PodView[]>();
  const wanted = new Set(claims.flatMap((c) => (c.nodeName !== undefined ? [c.nodeName] : [])));
  for (const p of look.pods) {
    if (p.nodeName === undefined || !wanted.has(p.nodeName)) continue;
    const list = onNode.get(p.nodeName);
    if (list) list.push(p);
    else onNode.set(p.nodeName, [p]);
  }
  const out = new Map<string, AmiTrial[]>();
  for (const c of claims) {
    const pods = c.nodeName !== undefined ? (onNode.get(c.nodeName) ?? []) : [];
    const drift = look.drift(c);
    const ready = c.nodeName !== undefined && look.nodes.get(c.nodeName)?.ready === true;
    const state: AmiTrial['state'] = !drift
      ? 'scale-up'
      : c.deleting
        ? 'deleting'
        : c.conditions.Initialized?.status !== 'True'
          ? 'not Initialized'
          : !ready
            ? 'NotReady'
            : pods.some((p) => testsAmi(p, look.failingWorkloads))
              ? 'tested'
              : 'no pod';
    const trial: AmiTrial = {
      nodeClaim: c.name,
      ...(c.nodeName !== undefined ? { node: c.nodeName } : {}),
      nodePool: c.nodePool!,
      drift,
      state,
      daemonSetPods: pods.filter((p) => p.daemonSet && livePod(p)).length,
    };
    const list = out.get(c.imageId!);
    if (list) list.push(trial);
    else out.set(c.imageId!, [trial]);
  }
  return out;
}

const tested = (trials: readonly AmiTrial[] | undefined) => trials?.some((t) => t.state === 'tested') === true;

/**
 * At a stage's last checkpoint: its target AMIs (those with old nodes running pods) that no drift replacement of the
 * stage has tested (`amiTrials`), whether or not anything was replaced.
 */
export function untestedAmis(amis: readonly StageAmi[], trials: ReadonlyMap<string, readonly AmiTrial[]>): StageAmi[] {
  return amis.filter((a) => withPods(a) > 0 && !tested(trials.get(a.id)));
}

/**
 * At the end of a `1/ami` wave, whose point is to test each target AMI on one node before the rest: the AMIs that a
 * drift replacement of the stage runs and none tests (its old node's pods went elsewhere, or it runs DaemonSet pods
 * alone). An AMI with no drift replacement at all had no node the wave could take (the picks pick again while one is
 * left, stages/ami-picks.ts): the stage's last checkpoint asks for it.
 */
export function untestedByWave(amis: readonly StageAmi[], trials: ReadonlyMap<string, readonly AmiTrial[]>): StageAmi[] {
  return amis.filter((a) => trials.get(a.id)?.some((t) => t.drift) === true && !tested(trials.get(a.id)));
}

function trialText(t: AmiTrial): string {
  const what = `nodeclaim/${t.nodeClaim}${t.node !== undefined ? ` (node ${t.node})` : ''} in nodepool/${t.nodePool}`;
  switch (t.state) {
    case 'scale-up':
      return `${what}: not a drift replacement (no DisruptionLaunching event, not created with a drift command): Karpenter launched it for pending pods, so it tests nothing of this stage`;
    case 'deleting':
      return `${what}: a drift replacement on its way out`;
    case 'not Initialized':
      return `${what}: a drift replacement not Initialized`;
    case 'NotReady':
      return `${what}: a drift replacement whose Node is not Ready`;
    case 'no pod':
      return `${what}: a drift replacement, Initialized and Ready, that runs ${t.daemonSetPods > 0 ? `only DaemonSet pods (${t.daemonSetPods})` : 'no pod'}: its old node's pods were scheduled elsewhere, or are not Ready`;
    case 'tested':
      return `${what}: tested`;
  }
}

export function untestedFinding(
  a: StageAmi,
  at: { index: number; name: string; wave?: number },
  trials: readonly AmiTrial[],
): GateFinding {
  const old = a.nodePools.reduce((n, p) => n + p.oldNodes, 0);
  const empty = a.nodePools.reduce((n, p) => n + p.emptyNodes.length, 0);
  const where =
    at.wave !== undefined
      ? `stage ${at.index + 1} (${at.name}) wave ${at.wave + 1} (1/ami)`
      : `stage ${at.index + 1} (${at.name})`;
  return {
    gate: 'replacements',
    code: 'STAGE-UNTESTED',
    subject: `ami/${a.id}`,
    ...(a.nodePools[0] ? { nodePool: a.nodePools[0].name } : {}),
    ami: a.id,
    message: `${where} ends without a drift replacement on ${a.label} AMI ${a.id} that runs a pod Ready (not a DaemonSet's): nothing has tested that AMI with a workload, so the next ${at.wave !== undefined ? 'wave' : 'stage'} does not begin`,
    evidence: [
      `the plan: ${plural(old, 'old node')} of ${a.nodePools.map((p) => `nodepool/${p.name}`).join(', ')} move onto it, ${empty} of them empty then`,
      ...(trials.length === 0
        ? ['now: no NodeClaim of the stage runs it (an empty node is deleted without a replacement)']
        : listed(trials.map(trialText), 'NodeClaims on it')),
    ],
  };
}
