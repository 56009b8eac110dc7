// Why a rollout is not moving: coded blockers with evidence and a next step (STYLE.md "A stall diagnosis has a
// stable code and evidence"). Each check reads what Karpenter reads (DOMAIN.md §2.5–2.7) and quotes Karpenter's own
// events (§2.8) when there are any. The checks of the pods on drifted nodes (do-not-disrupt, PDBs, the scheduling
// simulation) are in pod-stalls.ts.
import type { EventView, NodeClaimView, NodeClassView, PodView } from '../karpenter/views.js';
import { allowedDisruptions, type Budget, type BudgetEvaluation } from '../karpenter/budgets.js';
import { budgetMapping } from '../karpenter/budget-mapping.js';
import { REGISTRATION_TTL_MS } from '../karpenter/lifecycle.js';
import { listed, quotes } from './evidence.js';
import { podBlockers } from './pod-stalls.js';
import type { Blocker, DiagnosisContext, Facts, Pool, StallCode } from './blocker.js';
import { eventTime, type Snapshot } from './snapshot.js';
import { HOLD_ANNOTATION, holdBudgetText, karpDriftHold, switchState } from '../apis/budget-hold.js';
import { holdState, holdStateLabel, holdStateNext, liveRunText } from '../apis/hold-state.js';
import { claimsByNodePool, isDisrupting, isPicked, isTrue, nodeOf, type RolloutScope } from './track.js';
import { amiSelectorTermText, humanDuration, plural, utcTime } from '../text/words.js';
import { amisCondition, launchesNothing, rollbackCommand, takenTargets, unresolvedAlias } from './readiness.js';
import { badAmiBlockers, holdBack } from './bad-ami.js';

export type { Blocker, DiagnosisContext, Facts, Pool, StallCode } from './blocker.js';

/**
 * In the order a rollout meets them, which is the order `diagnose` returns them in; but a failing target AMI comes
 * first, since what else holds the rollout is then what keeps the old nodes off that AMI (bad-ami.ts).
 */
export const STALL_CODES: readonly StallCode[] = [
  'STALL-BAD-AMI',
  'STALL-AMIS-NOT-READY',
  'STALL-NOT-DRIFTING',
  'STALL-HELD',
  'STALL-BUDGET',
  'STALL-DO-NOT-DISRUPT',
  'STALL-PDB',
  'STALL-NO-TGP',
  'STALL-UNSCHEDULABLE',
  'STALL-LAUNCH',
  'STALL-REGISTRATION',
];

/** Drift is set within seconds of a status.amis change, at worst on the 5-minute requeue (DOMAIN.md §2.4). */
export const NOT_DRIFTING_AFTER_MS = 10 * 60_000;
/** Karpenter repeats a standing event every 1–2 minutes (its dedupe window); older ones describe the past. */
export const RECENT_EVENT_MS = 15 * 60_000;
/** The launch failure Karpenter publishes as an event (launch.go); NodeClassNotReady is only logged. */
const LAUNCH_EVENTS = new Set(['InsufficientCapacityError']);
const KARPENTER_LOGS = 'kubectl logs -n <karpenter namespace> -l app.kubernetes.io/name=karpenter --tail=500';

export function diagnose(snapshot: Snapshot, context: DiagnosisContext, now: Date): Blocker[] {
  const { scope } = context;
  const podsByNode = new Map<string, PodView[]>();
  for (const pod of context.pods) {
    if (pod.nodeName === undefined) continue;
    const list = podsByNode.get(pod.nodeName);
    if (list) list.push(pod);
    else podsByNode.set(pod.nodeName, [pod]);
  }
  const f: Facts = {
    snapshot,
    context,
    now,
    events: [...snapshot.events.values()].filter((e) => recent(e, now)),
    podsByNode,
  };
  const byPool = claimsByNodePool(snapshot);
  const blockers: Blocker[] = badAmiBlockers(f);
  for (const nodeClass of new Set(scope.nodePools.map((p) => p.nodeClass)))
    blockers.push(...amisNotReady(f, nodeClass));
  for (const { name, nodeClass } of scope.nodePools) {
    const targets = new Set(scope.targetImageIds[nodeClass] ?? []);
    const claims = byPool.get(name) ?? [];
    const pool: Pool = {
      name,
      nodeClass,
      view: context.nodePools.find((p) => p.name === name),
      nodeClassView: snapshot.nodeClasses.get(nodeClass),
      claims,
      old: claims.filter((c) => c.imageId !== undefined && !targets.has(c.imageId)),
    };
    blockers.push(
      ...notDrifting(f, pool),
      ...heldByKarpDrift(f, pool),
      ...budget(f, pool),
      ...podBlockers(f, pool),
      ...launch(f, pool),
      ...registration(f, pool),
    );
  }
  return holdBack(
    blockers.sort((a, b) => STALL_CODES.indexOf(a.code) - STALL_CODES.indexOf(b.code)),
    scope,
  );
}

function amisNotReady(f: Facts, nodeClass: string): Blocker[] {
  const view = f.snapshot.nodeClasses.get(nodeClass);
  const amisReady = view?.conditions.AMIsReady;
  if (view === undefined) return [];
  const pools = f.context.scope.nodePools.filter((p) => p.nodeClass === nodeClass).map((p) => p.name);
  const terms = `amiSelectorTerms: ${view.amiSelectorTerms.map(amiSelectorTermText).join('; ')}`;
  const applied = f.context.scope.nodeClassGenerations?.[nodeClass] ?? view.generation;
  const unresolved = unresolvedAlias(view, applied);
  if (unresolved !== undefined) {
    const ready = view.conditions.Ready;
    return [
      {
        code: 'STALL-AMIS-NOT-READY',
        nodeClass,
        message: `EC2NodeClass "${nodeClass}" cannot resolve alias "${unresolved.alias}" and ${launchesNothing(`Ready=${ready?.status}`)}`,
        evidence: [
          `Ready=${ready?.status} ${ready?.reason}: ${ready?.message} (generation ${applied})`,
          `AMIsReady is still at generation ${unresolved.amisReadyGeneration ?? '?'}${amisReady ? ` (${amisReady.status} ${amisReady.reason})` : ''}: Karpenter's AMI reconcile fails with "failed to discover any AMIs for alias" (its log) and retries`,
          terms,
          `status.amis still lists what was resolved before: ${view.statusAmis.map((a) => a.id).join(', ') || '(none)'}`,
          `every launch from this class fails while Ready is not True: NodePool ${pools.join(', ')} waits`,
        ],
        next: `Check that the alias's release exists for the control plane's Kubernetes version (${KARPENTER_LOGS} | grep "failed to discover any AMIs"); to go back: ${rollbackCommand(nodeClass)}`,
      },
    ];
  }
  if (amisReady === undefined || !observed(f.context.scope, view)) return [];
  if (amisReady.status === 'False') {
    const ids = view.amiSelectorTerms.flatMap((t) => (t.id !== undefined ? [t.id] : []));
    const back = `; to go back: ${rollbackCommand(nodeClass)}`;
    return [
      {
        code: 'STALL-AMIS-NOT-READY',
        nodeClass,
        message: `EC2NodeClass "${nodeClass}" AMIsReady=False: ${amisReady.reason}, and it ${launchesNothing('Ready=False')}`,
        evidence: [
          `AMIsReady=False ${amisReady.reason}: ${amisReady.message}`,
          terms,
          amisReady.reason === 'UnsupportedAlias'
            ? `status.amis keeps the AMIs resolved before (${view.statusAmis.map((a) => a.id).join(', ') || 'none'}), so nothing drifts; with Ready=False Karpenter deletes every new NodeClaim of this class (NodeClassNotReady): NodePool ${pools.join(', ')} waits`
            : `without status.amis Karpenter sets no AMIDrift, and with Ready=False it deletes every new NodeClaim of this class (NodeClassNotReady): NodePool ${pools.join(', ')} waits`,
        ],
        next:
          amisReady.reason === 'UnsupportedAlias'
            ? `The alias family does not support this Kubernetes version (AL2 ends at 1.32, Windows Server 2025 starts at 1.35): pin another family in EC2NodeClass "${nodeClass}"${back}`
            : amisReady.reason === 'AMINotFound' && ids.length > 0
              ? `Check the pinned AMIs exist, are available and visible to this account in this region: aws ec2 describe-images --image-ids ${ids.join(' ')} --include-deprecated${back}`
              : `kubectl get ec2nodeclass ${nodeClass} -o yaml (status.conditions, amiSelectorTerms)${back}`,
      },
    ];
  }
  const targets = f.context.scope.targetImageIds[nodeClass] ?? [];
  const resolved = view.statusAmis.map((a) => a.id);
  if (amisReady.status !== 'True' || targets.every((id) => resolved.includes(id))) return [];
  return [
    {
      code: 'STALL-AMIS-NOT-READY',
      nodeClass,
      message: `EC2NodeClass "${nodeClass}" resolved AMIs other than the target`,
      evidence: [`status.amis: ${resolved.join(', ') || '(none)'}`, `target: ${targets.join(', ')}`, terms],
      next: `Another writer may have changed amiSelectorTerms (GitOps, a second run): kubectl get ec2nodeclass ${nodeClass} -o yaml --show-managed-fields`,
    },
  ];
}

/**
 * Karpenter has taken the applied generation: its AMI condition has seen it (one without observedGeneration cannot
 * tell: trust it), or, on v0.32–v0.36, which write no condition, status.amis holds the targets.
 */
function observed(scope: RolloutScope, view: NodeClassView): boolean {
  const applied = scope.nodeClassGenerations?.[view.name];
  const condition = amisCondition(view);
  if (condition === undefined) return takenTargets(view, scope.targetImageIds[view.name] ?? []);
  const seen = condition.observedGeneration;
  return applied === undefined || seen === undefined || seen >= applied;
}

function notDrifting(f: Facts, pool: Pool): Blocker[] {
  const { scope } = f.context;
  const view = pool.nodeClassView;
  const amisReady = view && amisCondition(view);
  const elapsed = f.now.getTime() - scope.startedAt.getTime();
  if (view === undefined || amisReady?.status === 'False' || elapsed < NOT_DRIFTING_AFTER_MS) return [];
  const karpenterLogs = KARPENTER_LOGS;
  const applied = scope.nodeClassGenerations?.[view.name] ?? view.generation;
  // Karpenter did reconcile the generation but could not resolve the alias: STALL-AMIS-NOT-READY says so.
  if (unresolvedAlias(view, applied) !== undefined) return [];
  if (!observed(scope, view)) {
    return [
      {
        code: 'STALL-NOT-DRIFTING',
        nodePool: pool.name,
        message: `EC2NodeClass "${view.name}" has not observed generation ${applied} ${humanDuration(elapsed)} after the change (NodePool ${pool.name})`,
        evidence: [
          amisReady === undefined
            ? `the EC2NodeClass has no conditions (Karpenter v0.32–v0.36 write none) and its status.amis lists ${view.statusAmis.map((a) => a.id).join(', ') || 'nothing'}, not every target`
            : `${view.conditions.AMIsReady ? 'AMIsReady' : 'Ready'} observedGeneration ${amisReady.observedGeneration ?? '?'} (${amisReady.status} ${amisReady.reason})`,
        ],
        next: `Is Karpenter running? kubectl get pods -A -l app.kubernetes.io/name=karpenter; then ${karpenterLogs}`,
      },
    ];
  }
  // The class may have settled after the rollout started: count from the later of the two.
  const transition = Date.parse(amisReady?.lastTransitionTime ?? '');
  const since = Math.max(scope.startedAt.getTime(), Number.isNaN(transition) ? 0 : transition);
  const quiet = pool.old.filter(
    (c) => !c.deleting && !isTrue(c.conditions, 'Drifted') && !isDisrupting(c, nodeOf(f.snapshot, c)),
  );
  if (quiet.length === 0 || f.now.getTime() - since < NOT_DRIFTING_AFTER_MS) return [];
  const resolved = new Set(view.statusAmis.map((a) => a.id));
  const stillResolved = [
    ...new Set(quiet.flatMap((c) => (c.imageId !== undefined && resolved.has(c.imageId) ? [c.imageId] : []))),
  ];
  return [
    {
      code: 'STALL-NOT-DRIFTING',
      nodePool: pool.name,
      message: `${plural(quiet.length, 'NodeClaim')} off target without Drifted ${humanDuration(f.now.getTime() - since)} after the EC2NodeClass changed (NodePool ${pool.name})`,
      evidence: [
        ...listed(
          quiet.map((c) => `NodeClaim ${c.name} on ${c.imageId ?? '?'}${c.nodeName ? ` (node ${c.nodeName})` : ''}`),
          'NodeClaims',
        ),
        `EC2NodeClass ${view.name} status.amis: ${[...resolved].join(', ') || '(none)'}`,
        ...stillResolved.map(
          (id) => `${id} is still in status.amis: Karpenter sees no AMIDrift while the selector matches it`,
        ),
        ...(f.context.karpenterApi === 'v1beta1'
          ? ['Karpenter v0.32 ships with drift off: its FEATURE_GATES must include Drift=true']
          : []),
      ],
      next:
        stillResolved.length > 0
          ? `Narrow amiSelectorTerms of EC2NodeClass "${view.name}" to the target AMIs`
          : `Look for Karpenter's drift decisions: kubectl get nodeclaims -l karpenter.sh/nodepool=${pool.name} -o wide (DRIFTED); ${karpenterLogs} | grep -i drift`,
    },
  ];
}

/**
 * karp-drift's own holds (pause, a staged rollout that ended early): a budget it appended, or do-not-disrupt it put
 * on old nodes. Said as what they are, with karp-drift's way out, not as a budget or annotation to edit by hand.
 */
function heldByKarpDrift(f: Facts, pool: Pool): Blocker[] {
  const hold = pool.view !== undefined ? karpDriftHold(pool.view) : undefined;
  const nodes = pool.old.flatMap((claim) => {
    const node = nodeOf(f.snapshot, claim);
    return node?.heldBy !== undefined && !claim.deleting && !isDisrupting(claim, node) ? [node] : [];
  });
  // A dead run's switch that Karpenter reads as active holds drift at 0 whatever the hold beside it allows.
  const sw = pool.view !== undefined && hold !== undefined ? switchState(pool.view.budgets, f.now, hold.record) : undefined;
  const switched = sw?.active === true && hold !== undefined && hold.allowance > 0 ? (sw.at ?? f.now) : undefined;
  const budgetHeld = hold !== undefined && (hold.allowance === 0 || switched !== undefined) && pool.old.some((c) => !c.deleting);
  if (!budgetHeld && nodes.length === 0) return [];
  const runs = [...new Set([...(budgetHeld ? [hold.record.runId] : []), ...nodes.map((n) => n.heldBy!)])];
  // What the hold means now, when the caller read the cluster lock: a live run's pacing is not a pause.
  const state = f.context.lock !== undefined && pool.view !== undefined ? holdState(pool.view, nodes.length, f.context.lock, f.now) : undefined;
  const label = state === undefined || state.state === 'unknown' ? '' : ` (${holdStateLabel(state)})`;
  return [
    {
      code: 'STALL-HELD',
      nodePool: pool.name,
      message: `karp-drift holds Drifted disruption on NodePool ${pool.name}${label}`,
      evidence: [
        ...(budgetHeld && switched !== undefined
          ? [`the dead man's switch of karp-drift run ${hold.record.runId} ({nodes: "0", reasons: [Drifted]} from ${utcTime(switched)}) holds drift at 0: the run stopped renewing it`]
          : []),
        ...(budgetHeld && switched === undefined
          ? [`${holdBudgetText(0, hold.everyReason)} added by karp-drift run ${hold.record.runId} at ${hold.record.since}; the NodePool's own budgets are recorded in the ${HOLD_ANNOTATION} annotation`]
          : []),
        ...(state?.state === 'paced' ? [`${liveRunText(state.lock, f.now)}`] : []),
        ...listed(
          nodes.map((n) => `node ${n.name} has karpenter.sh/do-not-disrupt from karp-drift run ${n.heldBy}`),
          'nodes',
        ),
      ],
      next:
        state !== undefined && state.state !== 'paused' && state.state !== 'switched'
          ? holdStateNext(state, pool.name)
          : `re-run the staged upgrade to go on from where the cluster stands, or release the hold${runs.length > 1 ? 's' : ''} and let Karpenter go at the NodePool's own budgets: karp-drift resume --nodepool ${pool.name}`,
    },
  ];
}

function budget(f: Facts, pool: Pool): Blocker[] {
  if (pool.view === undefined) return [];
  // karp-drift's own hold is STALL-HELD; the NodePool's budgets are judged without it.
  const held = karpDriftHold(pool.view);
  const budgets = held ? held.budgets : pool.view.budgets;
  const { counted, disrupting } = budgetMapping(
    pool.claims.flatMap((claim) => {
      const node = nodeOf(f.snapshot, claim);
      if (node === undefined) return [];
      return [
        {
          claim,
          node,
          initialized: node.initialized,
          instanceTerminating: isTrue(claim.conditions, 'InstanceTerminating'),
          ready: node.ready,
          marked: isPicked(claim, node),
          nodeClaimDeleting: claim.deleting,
          nodeDeleting: node.deleting,
        },
      ];
    }),
  );
  const waiting = counted.filter(
    ({ claim, node }) => isTrue(claim.conditions, 'Drifted') && !isDisrupting(claim, node),
  );
  if (waiting.length === 0) return [];
  const result = allowedDisruptions(
    budgets,
    { numNodes: counted.length, disrupting: disrupting.length },
    'Drifted',
    f.now,
  );
  const inFlight = disrupting.some(({ claim, node }) => isDisrupting(claim, node));
  // With a limit above 0 and a replacement under way, the budget is pacing the roll, not stopping it.
  if (result.allowed > 0 || (result.limit > 0 && inFlight)) return [];
  const where = result.blocking === undefined ? '' : budgetName(budgets, result.blocking);
  const notReady = disrupting.filter(({ node }) => !node.ready);
  const quoted = quotes(
    f.events.filter(
      (e) => e.reason === 'DisruptionBlocked' && e.involvedKind === 'NodePool' && e.involvedName === pool.name,
    ),
    f.now,
  );
  const edit = `(budgets are not hashed: editing them causes no drift): kubectl edit nodepool ${pool.name}`;
  return [
    {
      code: 'STALL-BUDGET',
      nodePool: pool.name,
      message: `No allowed disruptions for reason Drifted (NodePool ${pool.name})`,
      evidence: [
        ...(result.blocking !== undefined ? [budgetText(where, result.blocking)] : []),
        `Drifted: limit ${result.limit} over ${plural(counted.length, 'initialized node')}, ${disrupting.length} disrupting, ${waiting.length} drifted waiting`,
        ...listed(
          notReady.map(({ node }) => `node ${node.name} is NotReady and uses the budget`),
          'nodes',
        ),
        ...quoted,
      ],
      next:
        result.blocking?.error !== undefined
          ? `Fix ${where} ${edit}`
          : result.limit > 0
            ? `Bring back or remove the NotReady nodes (kubectl get nodes -l karpenter.sh/nodepool=${pool.name}): they use up the budget`
            : result.blocking?.windowEnd !== undefined
              ? `Wait until ${utcTime(result.blocking.windowEnd)} (UTC), when ${where} ends, or allow Drifted disruptions ${edit}`
              : `Allow Drifted disruptions in spec.disruption.budgets ${edit}`,
    },
  ];
}

function budgetName(budgets: Budget[] | undefined, e: BudgetEvaluation): string {
  return budgets === undefined ? 'the default budget' : `spec.disruption.budgets[${e.index}]`;
}

function budgetText(where: string, e: BudgetEvaluation): string {
  const b = e.budget;
  const fields = [
    `nodes: "${b.nodes}"`,
    b.reasons !== undefined ? `reasons: [${b.reasons.join(', ')}]` : '',
    b.schedule !== undefined ? `schedule: "${b.schedule}"` : '',
    b.duration !== undefined ? `duration: ${b.duration}` : '',
  ].filter((s) => s !== '');
  const state =
    e.error !== undefined
      ? `is invalid (${e.error}), so Karpenter allows 0`
      : e.windowEnd !== undefined
        ? `is active until ${utcTime(e.windowEnd)} (UTC)`
        : 'is always active';
  return `${where} {${fields.join(', ')}} ${state}`;
}

function launch(f: Facts, pool: Pool): Blocker[] {
  const failing = pool.claims.filter((c) => {
    const launched = c.conditions.Launched;
    return (
      launched !== undefined && launched.status !== 'True' && !['', 'AwaitingReconciliation'].includes(launched.reason)
    );
  });
  // A launch that succeeded since makes older failures history (the launch-failure rollout that then went on).
  const lastLaunch = Math.max(
    0,
    ...pool.claims.map((c) =>
      c.conditions.Launched?.status === 'True' ? Date.parse(c.conditions.Launched.lastTransitionTime ?? '') || 0 : 0,
    ),
  );
  const events = f.events.filter(
    (e) =>
      LAUNCH_EVENTS.has(e.reason) &&
      e.involvedKind === 'NodeClaim' &&
      ofPool(f, pool, e.involvedName) &&
      !(Date.parse(eventTime(e)) < lastLaunch),
  );
  // Liveness copies the reason of a launch that timed out onto the NodePool; RegistrationFailed is STALL-REGISTRATION.
  const health = pool.view?.conditions.NodeRegistrationHealthy;
  const timedOut = health?.status === 'False' && health.reason !== 'RegistrationFailed' ? health : undefined;
  if (failing.length === 0 && events.length === 0 && timedOut === undefined) return [];
  const reasons = [
    ...new Set([
      ...failing.map((c) => c.conditions.Launched!.reason),
      ...events.map((e) => e.reason),
      ...(timedOut ? [timedOut.reason] : []),
    ]),
  ];
  const first = failing[0]?.name ?? events[0]?.involvedName ?? '';
  return [
    {
      code: 'STALL-LAUNCH',
      nodePool: pool.name,
      message: `Replacements fail to launch: ${reasons.join(', ')} (NodePool ${pool.name})`,
      evidence: [
        ...listed(
          failing.map((c) => {
            const l = c.conditions.Launched!;
            return `NodeClaim ${c.name} Launched=${l.status} ${l.reason}: ${l.message}`;
          }),
          'NodeClaims',
        ),
        ...quotes(events, f.now),
        ...(timedOut
          ? [
              `NodePool ${pool.name} NodeRegistrationHealthy=False ${timedOut.reason}: ${timedOut.message} (Karpenter deletes a NodeClaim not launched within 5m)`,
            ]
          : []),
      ],
      next: reasons.includes('InsufficientCapacityError')
        ? `Allow more instance types, zones or capacity types in spec.template.spec.requirements (kubectl edit nodepool ${pool.name}); then kubectl get nodeclaims -l karpenter.sh/nodepool=${pool.name} -w`
        : reasons.includes('NodeClassReadinessUnknown')
          ? `kubectl get ec2nodeclass ${pool.nodeClass} -o yaml: its Ready condition is Unknown (status.conditions say which dependent)`
          : first !== ''
            ? `kubectl describe nodeclaim ${first}`
            : `kubectl describe nodepool ${pool.name}`,
    },
  ];
}

// A NodeClaim that failed to launch is deleted at once, so often only its event is left: Karpenter names
// NodeClaims `<nodepool>-<5 characters>` (GenerateName), which ties the event to its NodePool.
function ofPool(f: Facts, pool: Pool, claimName: string | undefined): boolean {
  if (claimName === undefined) return false;
  const known = f.snapshot.nodeClaims.get(claimName);
  if (known !== undefined) return known.nodePool === pool.name;
  return claimName.startsWith(`${pool.name}-`) && /^[a-z0-9]{5}$/.test(claimName.slice(pool.name.length + 1));
}

/** When Karpenter gives up on a launched, unregistered NodeClaim: 15 minutes after its Registered condition was set. */
function registrationDeadline(claim: NodeClaimView): number {
  const since = Date.parse(
    claim.conditions.Registered?.lastTransitionTime ?? claim.conditions.Launched?.lastTransitionTime ?? claim.createdAt ?? '',
  );
  return Number.isNaN(since) ? Number.POSITIVE_INFINITY : since + REGISTRATION_TTL_MS;
}

// Karpenter's own limits, not a guess: a replacement past the registration timeout (liveness deletes it then), or
// the NodePool's NodeRegistrationHealthy=False RegistrationFailed "Failed to register node" once it has done so.
function registration(f: Facts, pool: Pool): Blocker[] {
  const unregistered = pool.claims.filter(
    (claim) => !claim.deleting && claim.conditions.Launched?.status === 'True' && !isTrue(claim.conditions, 'Registered'),
  );
  const overdue = unregistered.filter((claim) => f.now.getTime() >= registrationDeadline(claim));
  const health = pool.view?.conditions.NodeRegistrationHealthy;
  const failed = health?.status === 'False' && health.reason === 'RegistrationFailed' ? health : undefined;
  if (overdue.length === 0 && failed === undefined) return [];
  const events = f.events.filter((e) => e.reason === 'UnregisteredTaintMissing' && ofPool(f, pool, e.involvedName));
  const shown = overdue.length > 0 ? overdue : unregistered;
  const instance = shown[0]?.providerId?.split('/').pop();
  const ami = shown[0]?.imageId ?? 'the new AMI';
  const back = `to stop the roll: ${rollbackCommand(pool.nodeClass)}`;
  return [
    {
      code: 'STALL-REGISTRATION',
      nodePool: pool.name,
      message:
        overdue.length > 0
          ? `${plural(overdue.length, 'replacement')} launched but not registered within Karpenter's ${humanDuration(REGISTRATION_TTL_MS)} (NodePool ${pool.name})`
          : `NodeRegistrationHealthy=False: new nodes fail to join the cluster (NodePool ${pool.name})`,
      evidence: [
        ...(failed ? [`NodePool ${pool.name} NodeRegistrationHealthy=False ${failed.reason}: ${failed.message}`] : []),
        ...listed(
          shown.map((claim) => {
            const r = claim.conditions.Registered;
            const state =
              r === undefined ? 'no Registered condition' : `Registered=${r.status} ${r.reason}: ${r.message}`;
            const deadline = registrationDeadline(claim);
            const when =
              deadline === Number.POSITIVE_INFINITY
                ? ''
                : f.now.getTime() >= deadline
                  ? `; Karpenter deletes it (due ${utcTime(new Date(deadline))} UTC)`
                  : `; Karpenter deletes it at ${utcTime(new Date(deadline))} UTC if it has not registered`;
            return `NodeClaim ${claim.name} from ${claim.imageId ?? '?'} (${claim.providerId ?? 'no providerID'}), ${state}${when}`;
          }),
          'NodeClaims',
        ),
        ...quotes(events, f.now),
        `Karpenter deletes a NodeClaim not registered ${humanDuration(REGISTRATION_TTL_MS)} after launch, and drift tries again`,
      ],
      next:
        instance !== undefined
          ? `Find out why nodes from ${ami} do not join: aws ec2 get-console-output --instance-id ${instance} --latest --output text; ${back}`
          : `kubectl describe nodepool ${pool.name}; ${back}`,
    },
  ];
}

function recent(e: EventView, now: Date): boolean {
  const at = Date.parse(eventTime(e));
  return Number.isNaN(at) || now.getTime() - at <= RECENT_EVENT_MS;
}
