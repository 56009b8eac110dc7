// What will hold the drift back once the AMIs change: disruption budgets (DOMAIN.md §2.6), PodDisruptionBudgets and
// `karpenter.sh/do-not-disrupt` (§2.7), precomputed for the nodes that will drift (§8 requirements 11 and 12).
import { holdBudgetText } from '../apis/budget-hold.js';
import { doNotDisrupt, invalidDoNotDisruptMessage, isActivePod, pdbBlock, pdbKey, type PdbBlock } from '../karpenter/disruptable.js';
import type { Inventory, NodePoolView, PodView } from '../karpenter/views.js';
import { check, type Check } from './checks.js';
import type { BlockingBudget, DriftingNodeClaim, NodePoolPlan } from './pools.js';
import { plural } from '../text/words.js';
import { holdState, holdStateLabel, holdStateNext, holdStateText, type RunLock } from '../apis/hold-state.js';

const BLOCKED_EVENT = 'No allowed disruptions for disruption reason Drifted due to blocking budget';

/** `2024-01-10T18:00:00.000Z` → `2024-01-10 18:00 UTC` (budget schedules are UTC only). */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** `spec.disruption.budgets[1] {nodes: "0", schedule: "0 9 * * 1-5", duration: 8h}` */
export function budgetText(b: BlockingBudget): string {
  if (b.default) return `the default budget {nodes: "${b.nodes}"} (spec.disruption.budgets is unset)`;
  const fields = [`nodes: "${b.nodes}"`];
  if (b.reasons !== undefined) fields.push(`reasons: [${b.reasons.join(', ')}]`);
  if (b.schedule !== undefined) fields.push(`schedule: "${b.schedule}"`);
  if (b.duration !== undefined) fields.push(`duration: ${b.duration}`);
  return `spec.disruption.budgets[${b.index}] {${fields.join(', ')}}`;
}


/**
 * karp-drift holds the NodePool's drift: a live run paces it (this upgrade would wait for its lock), a pause or a
 * staged rollout that ended early left it (a staged upgrade re-run takes the hold over and goes on; anything else
 * waits for `karp-drift resume`), or a dead run's hold still lets Karpenter drain. `lock`: the cluster lock as read
 * (absent: not read, and the hold is described without saying whether a run is live).
 */
export function heldChecks(plan: NodePoolPlan, inventory: Inventory, pool: NodePoolView, lock: RunLock | undefined, now: Date): Check[] {
  if (plan.toDrift === 0) return [];
  const drifting = new Set(plan.drifting.flatMap((d) => (d.node !== undefined ? [d.node] : [])));
  const nodes = inventory.nodes.filter((n) => n.heldBy !== undefined && drifting.has(n.name));
  const budget = plan.heldByKarpDrift;
  if (budget === undefined && nodes.length === 0) return [];
  const state = lock !== undefined ? holdState(pool, nodes.length, lock, now) : undefined;
  const evidence = [
    ...(budget !== undefined
      ? [`${holdBudgetText(budget.allowance, budget.everyReason === true)} added by karp-drift run ${budget.runId} at ${budget.since}`]
      : []),
    ...(nodes.length > 0 ? [`${plural(nodes.length, 'node')} with karpenter.sh/do-not-disrupt from karp-drift (${[...new Set(nodes.map((n) => `run ${n.heldBy}`))].join(', ')})`] : []),
  ];
  if (state !== undefined && state.state !== 'paused' && state.state !== 'switched') {
    return [
      check(
        'DRIFT-HELD',
        state.state === 'draining' ? 'warning' : 'info',
        `nodepool/${plan.name}: karp-drift holds its Drifted disruption: ${holdStateText(state, now)}`,
        evidence,
        holdStateNext(state, plan.name),
      ),
    ];
  }
  const label = state !== undefined ? ` (${holdStateLabel(state)})` : '';
  return [
    check(
      'DRIFT-HELD',
      'info',
      `nodepool/${plan.name}: karp-drift holds its Drifted disruption${label}: a staged upgrade re-run takes the hold over and goes on; otherwise none of its ${plural(plan.toDrift, 'drifting node')} is replaced until karp-drift resume`,
      evidence,
      `karp-drift resume --nodepool ${plan.name} releases it (the NodePool's own budgets come back exactly)`,
    ),
  ];
}

export function budgetChecks(plan: NodePoolPlan, pool: NodePoolView): Check[] {
  if (plan.toDrift === 0) return [];
  const checks: Check[] = [];
  const b = plan.blockingBudget;
  const drifting = plural(plan.toDrift, 'node');
  if (plan.limit === 0 && b?.error !== undefined) {
    // Never intended, unlike nodes: "0": applying would drift nodes that can never be replaced, so it is refused.
    checks.push(
      check(
        'BUDGET-INVALID',
        'error',
        `nodepool/${plan.name}: ${budgetText(b)} is invalid (${b.error}); Karpenter fails closed and allows no disruption in the pool, so its ${drifting} would drift and never be replaced`,
        [`Karpenter logs "detected disruption budget errors" and reports a DisruptionBlocked event on the NodePool: "${BLOCKED_EVENT}"`],
        `fix the budget first (kubectl edit nodepool ${plan.name}); budgets are not hashed, so editing one never causes drift`,
      ),
    );
  } else if (plan.limit === 0 && b !== undefined) {
    const [why, next] =
      b.windowEnd !== undefined
        ? [
            `${budgetText(b)} is active until ${utcMinute(b.windowEnd)}`,
            `wait for the window to close at ${utcMinute(b.windowEnd)}, or change the budget (budgets are not hashed: editing one never causes drift)`,
          ]
        : [
            `${budgetText(b)} blocks it until the budget changes`,
            `raise the budget's nodes (kubectl edit nodepool ${plan.name}); budgets are not hashed, so editing one never causes drift`,
          ];
    checks.push(
      check(
        'BUDGET-BLOCKS-DRIFT',
        'warning',
        `nodepool/${plan.name}: the disruption budget allows no Drifted disruptions now, so its ${drifting} to drift wait: ${why}`,
        [`Karpenter reports a DisruptionBlocked event on the NodePool: "${BLOCKED_EVENT}"`],
        next,
      ),
    );
  } else if (plan.allowedDisruptions === 0) {
    // Replacements in flight fill the budget as they should; NotReady nodes fill it and stay (aws#6472).
    const notReady = plan.disrupting.filter((d) => d.why === 'NotReady');
    const n = plan.disrupting.length;
    const message =
      notReady.length === 0
        ? `nodepool/${plan.name}: ${plural(n, 'node')} already being replaced or deleted ${n === 1 ? 'uses' : 'use'} the whole Drifted budget (${plan.limit}): more drift starts as they finish`
        : `nodepool/${plan.name}: the whole Drifted budget (${plan.limit}) is used by ${plural(n, 'node')} that ${n === 1 ? 'is' : 'are'} NotReady, deleting or being disrupted, so drift cannot start until they are gone or Ready`;
    checks.push(
      check(
        'BUDGET-EXHAUSTED',
        notReady.length === 0 ? 'info' : 'warning',
        message,
        plan.disrupting.map((d) => `nodeclaim/${d.nodeClaim}: ${d.why}`),
        notReady.length === 0
          ? undefined
          : 'find out why the NotReady nodes are not Ready (kubectl describe node): Karpenter counts them against every disruption budget',
      ),
    );
  }
  // Karpenter's gotcha: an inactive scheduled budget imposes no limit at all (aws/karpenter-provider-aws#7842).
  const applying = (pool.budgets ?? []).filter((x) => x.reasons === undefined || x.reasons.includes('Drifted'));
  if (b?.error === undefined && applying.length > 0 && applying.every((x) => x.schedule !== undefined)) {
    const active = plan.limit !== Infinity;
    const message = active
      ? `nodepool/${plan.name}: every disruption budget for Drifted is scheduled: the limit holds only inside a window${b?.windowEnd !== undefined ? ` (this one closes at ${utcMinute(b.windowEnd)})` : ''}; outside its windows Karpenter may disrupt any number of drifting nodes at once`
      : `nodepool/${plan.name}: every disruption budget for Drifted is scheduled, and none is active now: Karpenter may disrupt all ${drifting} to drift at once`;
    checks.push(
      check(
        'BUDGET-SCHEDULED-ONLY',
        active ? 'info' : 'warning',
        message,
        applying.map((x) => `schedule "${x.schedule}", duration ${x.duration}: nodes "${x.nodes}"`),
        'add an unscheduled budget such as {nodes: "10%", reasons: [Drifted]} to cap drift outside the windows; to block drift outside them, use nodes: "0" with a schedule that covers those hours',
      ),
    );
  }
  return checks;
}

function tgpNotes(claims: readonly DriftingNodeClaim[], nodeNames: ReadonlySet<string>): string[] {
  return claims
    .filter((c) => c.node !== undefined && nodeNames.has(c.node) && c.terminationGracePeriod !== undefined)
    .map(
      (c) =>
        `node/${c.node} (nodeclaim/${c.nodeClaim}) has terminationGracePeriod ${c.terminationGracePeriod}: Karpenter drifts it anyway and deletes the remaining pods when that runs out`,
    );
}

const podName = (p: PodView) => `pod ${p.namespace}/${p.name} on node/${p.nodeName}`;

/**
 * PDBs allowing no disruption, pods under several PDBs, and do-not-disrupt pods and nodes, on nodes that will drift,
 * by Karpenter's rules (karpenter/disruptable.ts): do-not-disrupt on every active pod, PDBs on evictable pods only.
 */
export function podBlockerChecks(inventory: Inventory, pools: readonly NodePoolPlan[], now: Date): Check[] {
  const claims = pools.flatMap((p) => p.drifting);
  const driftingNodes = new Set<string>();
  for (const c of claims) if (c.node !== undefined) driftingNodes.add(c.node);
  const pods = inventory.pods.filter((p) => p.nodeName !== undefined && driftingNodes.has(p.nodeName) && isActivePod(p));
  const checks: Check[] = [];

  // A loop, not a flatMap: every pod of every node that drifts passes here (50,000 on `large`), and few are blocked.
  const blocked: Array<{ pod: PodView; block: PdbBlock }> = [];
  for (const pod of pods) {
    const block = pdbBlock(pod, inventory.pdbs, now);
    if (block !== undefined) blocked.push({ pod, block });
  }
  for (const pdb of inventory.pdbs) {
    const covered = blocked.filter(({ block }) => !block.multiple && block.pdbs[0] === pdb).map(({ pod }) => pod);
    if (covered.length === 0) continue;
    const nodes = new Set(covered.map((p) => p.nodeName!));
    const key = pdbKey(pdb);
    checks.push(
      check(
        'PDB-BLOCKS',
        'warning',
        `poddisruptionbudget ${key} allows 0 disruptions and covers ${plural(covered.length, 'pod')} on ${plural(nodes.size, 'node')} that will drift: Karpenter skips those nodes (DisruptionBlocked: Pdb prevents pod evictions (PodDisruptionBudget=[${key}]))`,
        [...covered.map(podName), ...tgpNotes(claims, nodes)],
        'let the PDB allow a disruption (more replicas, or a looser minAvailable/maxUnavailable) before the rollout reaches these nodes',
      ),
    );
  }

  const multiple = blocked.filter(({ block }) => block.multiple);
  if (multiple.length > 0) {
    const keys = multiple[0]!.block.pdbs.map(pdbKey).join(' ');
    checks.push(
      check(
        'PDB-MULTIPLE',
        'warning',
        `${plural(multiple.length, 'pod')} on nodes that will drift ${multiple.length === 1 ? 'is' : 'are'} selected by more than one PodDisruptionBudget: the eviction API refuses such pods, so Karpenter skips their nodes (DisruptionBlocked: Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[${keys}]))`,
        multiple.map(({ pod, block }) => `${podName(pod)}: ${block.pdbs.map(pdbKey).join(', ')}`),
        'change the PDB selectors so that each pod matches one PodDisruptionBudget',
      ),
    );
  }

  checks.push(...doNotDisruptChecks(inventory, pods, claims, driftingNodes, now));

  // Karpenter's scheduling simulation cannot place such a pod on a replacement (DOMAIN.md §2.7): the node is skipped
  // for as long as the pod runs, and a terminationGracePeriod does not help because the drain never starts.
  // The simulation moves the reschedulable pods: not DaemonSet or mirror pods (pod.IsReschedulable).
  const pinnedAny = pods.filter((p) => p.pinnedTo !== undefined && !p.daemonSet && !p.mirror);
  const hostnames = pinnedAny.length > 0 ? new Map(inventory.nodes.map((n) => [n.name, n.hostname])) : undefined;
  const pinned = pinnedAny.filter((p) => p.pinnedTo === p.nodeName || p.pinnedTo === hostnames?.get(p.nodeName!));
  if (pinned.length > 0) {
    const first = pinned[0]!;
    checks.push(
      check(
        'POD-PINNED',
        'warning',
        `${plural(pinned.length, 'pod')} on nodes that will drift ${pinned.length === 1 ? 'is' : 'are'} pinned to ${pinned.length === 1 ? 'its' : 'their'} node by name: no replacement can run ${pinned.length === 1 ? 'it' : 'them'}, so Karpenter skips those nodes (DisruptionBlocked: Not all pods would schedule), and terminationGracePeriod does not help because the drain never starts`,
        pinned.map((p) => `${podName(p)}: requires the node ${p.pinnedTo} (kubernetes.io/hostname or metadata.name)`),
        `delete the pods or re-create them without the node pin before the rollout reaches these nodes, e.g. kubectl delete pod -n ${first.namespace} ${first.name}`,
      ),
    );
  }
  return checks;
}

function doNotDisruptChecks(
  inventory: Inventory,
  pods: readonly PodView[],
  claims: readonly DriftingNodeClaim[],
  driftingNodes: ReadonlySet<string>,
  now: Date,
): Check[] {
  const checks: Check[] = [];
  // karp-drift's own do-not-disrupt is DRIFT-HELD, with karp-drift's way out.
  const nodes = inventory.nodes.filter((n) => driftingNodes.has(n.name) && n.doNotDisrupt && n.heldBy === undefined);
  // Only an annotated pod can hold or be ignored.
  const read = pods.filter((pod) => pod.doNotDisrupt !== undefined).map((pod) => ({ pod, dnd: doNotDisrupt(pod, now) }));
  const holding = read.flatMap(({ pod, dnd }) => (dnd.state === 'active' ? [{ pod, until: dnd.until }] : []));
  if (nodes.length + holding.length > 0) {
    const what = [
      nodes.length > 0 ? plural(nodes.length, 'node') : '',
      holding.length > 0 ? plural(holding.length, 'pod') : '',
    ]
      .filter(Boolean)
      .join(' and ');
    const first = holding[0]?.pod;
    const events = [
      ...(first !== undefined
        ? [`Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=${first.namespace}/${first.name})`]
        : []),
      ...(nodes.length > 0 ? ['Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'] : []),
    ];
    checks.push(
      check(
        'DO-NOT-DISRUPT',
        'warning',
        `${what} on nodes that will drift carry karpenter.sh/do-not-disrupt: Karpenter skips those nodes for drift while the annotation holds (DisruptionBlocked: ${events.join('; ')})`,
        [
          ...nodes.map(
            (n) =>
              `node/${n.name}: annotated, so Karpenter never picks it for drift (terminationGracePeriod does not help)`,
          ),
          ...holding.map(({ pod, until }) =>
            until === undefined
              ? `${podName(pod)}: "${pod.doNotDisrupt}"`
              : `${podName(pod)}: "${pod.doNotDisrupt}", which holds until ${utcMinute(until.toISOString())}`,
          ),
          ...tgpNotes(claims, new Set(holding.map(({ pod }) => pod.nodeName!))),
        ],
        'remove the annotation once the work is safe to interrupt, e.g. kubectl annotate pod -n <namespace> <pod> karpenter.sh/do-not-disrupt-',
      ),
    );
  }
  // A value Karpenter ignores holds nothing: information, never a blocker. "false" and "" are left out: Karpenter
  // ignores them too, which is what whoever wrote them meant.
  const ignored = read.flatMap(({ pod, dnd }) =>
    dnd.state === 'expired'
      ? [`${podName(pod)}: "${dnd.value}" ran out at ${utcMinute(dnd.at.toISOString())}`]
      : dnd.state === 'invalid' && dnd.value !== 'false' && dnd.value !== ''
        ? [`${podName(pod)}: "${dnd.value}" (InvalidDoNotDisruptAnnotation: ${invalidDoNotDisruptMessage(dnd.error)})`]
        : [],
  );
  if (ignored.length > 0) {
    const one = ignored.length === 1;
    checks.push(
      check(
        'DO-NOT-DISRUPT-IGNORED',
        'info',
        `${plural(ignored.length, 'pod')} on nodes that will drift ${one ? 'carries' : 'carry'} a karpenter.sh/do-not-disrupt value that Karpenter ignores, so ${one ? 'it does' : 'they do'} not hold the drift: only "true", or (Karpenter v1.12+) a positive duration such as "2h" counted from the pod's start, holds a node`,
        ignored,
        'to keep such a pod from being disrupted, write "true": kubectl annotate pod -n <namespace> <pod> karpenter.sh/do-not-disrupt=true --overwrite; otherwise remove the annotation',
      ),
    );
  }
  return checks;
}
