// What a stage must have tested before the next one begins: each target AMI its old nodes move onto (one per
// NodePool's family, arch and variant), on at least one replacement that is Initialized and Ready, its pods judged
// by the workloads gate through the soak. Drift takes empty candidates first and deletes an empty node without a
// replacement (kubernetes-sigs/karpenter v1.14.1 `disruption/drift.go`), so a canary of empty nodes would count its
// nodes as started and pass with nothing replaced. The plan says so (`CANARY-EMPTY`, refused), and a stage that ends
// untested anyway (its pods moved away since) halts at its last checkpoint (`STAGE-UNTESTED`). Pure.
import { isReschedulable } from '../karpenter/disruptable.js';
import type { Inventory, NodeClaimView, NodeView } from '../karpenter/views.js';
import { check, type Check } from '../plan/checks.js';
import type { Plan } from '../plan/plan.js';
import { targetOf } from '../plan/targets.js';
import { plural } from '../text/words.js';
import { listed } from '../rollout/evidence.js';
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
  const busy = new Set(inventory.pods.filter(isReschedulable).map((p) => p.nodeName));
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

/**
 * The stage's target AMIs (those with old nodes running pods) that no replacement tests: none on it, in any NodePool
 * in scope, is Initialized with its Node Ready.
 */
export function untestedAmis(
  amis: readonly StageAmi[],
  claims: readonly NodeClaimView[],
  nodes: ReadonlyMap<string, NodeView>,
): StageAmi[] {
  const tested = new Set<string>();
  for (const c of claims) {
    if (c.imageId === undefined || c.deleting || c.conditions.Initialized?.status !== 'True') continue;
    if (c.nodeName !== undefined && nodes.get(c.nodeName)?.ready === true) tested.add(c.imageId);
  }
  return amis.filter((a) => withPods(a) > 0 && !tested.has(a.id));
}

export function untestedFinding(
  a: StageAmi,
  stage: { index: number; name: string },
  replacements: number,
): GateFinding {
  const old = a.nodePools.reduce((n, p) => n + p.oldNodes, 0);
  const empty = a.nodePools.reduce((n, p) => n + p.emptyNodes.length, 0);
  return {
    gate: 'replacements',
    code: 'STAGE-UNTESTED',
    subject: `ami/${a.id}`,
    ...(a.nodePools[0] ? { nodePool: a.nodePools[0].name } : {}),
    ami: a.id,
    message: `stage ${stage.index + 1} (${stage.name}) ends without a replacement on ${a.label} AMI ${a.id} that is Initialized and Ready: nothing has tested that AMI, so the next stage does not begin`,
    evidence: [
      `the plan: ${plural(old, 'old node')} of ${a.nodePools.map((p) => `nodepool/${p.name}`).join(', ')} move onto it, ${empty} of them empty then`,
      `now: ${plural(replacements, 'replacement')} on it, none Initialized with its Node Ready (an empty node is deleted without a replacement)`,
    ],
  };
}
