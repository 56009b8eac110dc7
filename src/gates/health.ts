// The built-in health gates over the nodes this run replaced and the pods on them (docs/health-gates.md). Pure:
// the gate keeper (commands/gate-keeper.ts) reads, this judges, with `now` an argument.
//
// 1. Replacements come up: every replacement NodeClaim Launched, Registered and Initialized within --init-deadline
//    of its creation, its Node Ready from then on. A replacement deleted before it was Initialized, and a drift
//    command Karpenter gave up, are judged as they happen (attempts.ts); NodeRegistrationHealthy=False on the
//    NodePool (DOMAIN.md §1.3) is only quoted beside them: it needs 2 failed of the last 4 launches and is reset by
//    every write of the NodePool's spec, which each budget hold is.
// 2. Workloads stay healthy: pods on those nodes Ready within --pod-ready-deadline, none held back by the kubelet
//    (CrashLoopBackOff, ImagePullBackOff, ...) or restarted more than --max-restarts times, and no PDB covering pods
//    in scope below its desiredHealthy when it was healthy at the baseline.
// Something still coming up within its deadline is `pending`: a checkpoint waits for it, nothing fails yet.
import { capacityRefusal } from '../karpenter/capacity.js';
import { selectorMatches } from '../karpenter/convert.js';
import { LAUNCH_TTL_MS } from '../karpenter/lifecycle.js';
import type { NodeClaimView, NodePoolView, NodeView, PdbView, PodView } from '../karpenter/views.js';
import {
  conditionText,
  livePod,
  notReadyText,
  podEvidence,
  podHealth,
  replacementHealth,
  workloadOf,
} from '../rollout/replacement-health.js';
import { humanDuration } from '../text/words.js';
import { onTarget, pdbKey, type GateBaseline, type GateScope } from './baseline.js';
import type { GateRequest } from './request.js';

export type GateName = 'replacements' | 'workloads' | 'command';

/** Every finding code, in the order the docs list them (docs/troubleshooting.md, the `gate` event's schema). */
export const FINDING_CODES = [
  'REPLACEMENT-NOT-INITIALIZED',
  'REPLACEMENT-DELETED',
  'COMMAND-FAILED',
  'NODE-NOT-READY',
  'STAGE-UNTESTED',
  'POD-FAILING',
  'POD-RESTARTING',
  'POD-NOT-READY',
  'PDB-BELOW-DESIRED',
  'GATE-CMD-FAILED',
  'GATE-CMD-TIMEOUT',
  'GATE-UNREADABLE',
  // A note, never a failure: a replacement EC2 refused to launch for capacity (attempts.ts).
  'CAPACITY-REFUSED',
] as const;

export type FindingCode = (typeof FINDING_CODES)[number];

export interface GateFinding {
  gate: GateName;
  code: FindingCode;
  /** `kind/name` of what failed (nodeclaim/…, node/…, pod/ns/…, pdb/ns/…, nodepool/…). */
  subject: string;
  nodePool?: string;
  node?: string;
  ami?: string;
  message: string;
  /** Karpenter's and the kubelet's own words: conditions, container states, PDB status. */
  evidence: string[];
}

export interface HealthInput {
  nodeClaims: Iterable<NodeClaimView>;
  nodes: ReadonlyMap<string, NodeView>;
  /** At least the pods on the replaced nodes (others are ignored). */
  pods: readonly PodView[];
  pdbs: readonly PdbView[];
  /** Their NodeRegistrationHealthy is quoted beside the replacements' failures (`withRegistrationHealth`). */
  nodePools: readonly NodePoolView[];
}

export interface HealthVerdict {
  result: 'passed' | 'pending' | 'failed';
  /** What failed, at most MAX_PER_CODE per code (`counts` has them all). */
  findings: GateFinding[];
  counts: Partial<Record<FindingCode, number>>;
  /** What is still coming up within its deadline. */
  pending: string[];
  /** The replaced nodes looked at, and how many pods and PDBs. */
  replacedNodes: string[];
  pods: number;
  pdbs: number;
}

export const MAX_PER_CODE = 20;

type Limits = Pick<GateRequest, 'initDeadlineMs' | 'podReadyDeadlineMs' | 'maxRestarts'>;

/**
 * The NodeClaims the gates judge: the scope's on a target AMI (replacements of this run, and of an earlier run that
 * was halted: a re-run must not wave a bad AMI through because its nodes were there first), and new ones not yet
 * launched. Not those on their way out.
 */
export function gatedClaims(
  claims: Iterable<NodeClaimView>,
  scope: GateScope,
  baseline: GateBaseline,
): NodeClaimView[] {
  const pools = new Set(scope.nodePools);
  const out: NodeClaimView[] = [];
  for (const c of claims) {
    if (c.nodePool === undefined || !pools.has(c.nodePool) || c.deleting) continue;
    // Launched on a target AMI, or new and not launched yet: a scale-up that launched an old one is not ours.
    if (onTarget(c, scope) || (c.imageId === undefined && !baseline.nodeClaims.has(c.name))) out.push(c);
  }
  return out;
}

export function evaluateHealth(
  input: HealthInput,
  scope: GateScope,
  baseline: GateBaseline,
  limits: Limits,
  now: Date,
): HealthVerdict {
  const findings: GateFinding[] = [];
  const counts: Partial<Record<FindingCode, number>> = {};
  const pending: string[] = [];
  const add = (f: GateFinding) => {
    counts[f.code] = (counts[f.code] ?? 0) + 1;
    if (counts[f.code]! <= MAX_PER_CODE) findings.push(f);
  };

  const claims = gatedClaims(input.nodeClaims, scope, baseline);
  const byNode = new Map<string, NodeClaimView>();
  for (const c of claims) {
    if (c.nodeName !== undefined) byNode.set(c.nodeName, c);
    // Refused for capacity (Launched=Unknown with a capacity reason): still coming up, whatever --init-deadline says;
    // liveness deletes it 5 minutes after its creation and attempts.ts notes it then. Not the AMI's failure.
    if (capacityRefusal(c, []) !== undefined) {
      pending.push(
        `nodeclaim/${c.name}: ${conditionText('Launched', c.conditions.Launched)}, refused for capacity (Karpenter deletes it ${humanDuration(LAUNCH_TTL_MS)} after its creation)`,
      );
      continue;
    }
    replacement(c, input.nodes.get(c.nodeName ?? ''), limits, now, add, pending);
  }
  let podsChecked = 0;
  for (const p of input.pods) {
    const claim = p.nodeName !== undefined ? byNode.get(p.nodeName) : undefined;
    if (claim === undefined || !livePod(p) || baseline.failingWorkloads.has(workloadOf(p))) continue;
    podsChecked++;
    workload(p, claim, limits, now, add, pending);
  }

  let pdbsChecked = 0;
  for (const pdb of input.pdbs) {
    if (!baseline.healthyPdbs.has(pdbKey(pdb))) continue;
    pdbsChecked++;
    if (pdb.currentHealthy === undefined || pdb.desiredHealthy === undefined) continue;
    if (pdb.currentHealthy >= pdb.desiredHealthy) continue;
    const unready = input.pods.filter(
      (p) => p.namespace === pdb.namespace && livePod(p) && p.ready !== true && selectorMatches(pdb.selector, p.labels),
    );
    add({
      gate: 'workloads',
      code: 'PDB-BELOW-DESIRED',
      subject: `pdb/${pdb.namespace}/${pdb.name}`,
      message: `PodDisruptionBudget ${pdb.namespace}/${pdb.name} has ${pdb.currentHealthy} healthy pods of the ${pdb.desiredHealthy} it needs (it had enough before the rollout)`,
      evidence: [
        `status: currentHealthy ${pdb.currentHealthy}, desiredHealthy ${pdb.desiredHealthy}${pdb.expectedPods !== undefined ? `, expectedPods ${pdb.expectedPods}` : ''}`,
        ...unready
          .slice(0, 5)
          .map(
            (p) =>
              `unready on a replaced node: pod ${p.namespace}/${p.name} on ${p.nodeName}${p.waiting ? ` (${p.waiting.reason})` : ''}`,
          ),
      ],
    });
  }

  const result = findings.length > 0 ? 'failed' : pending.length > 0 ? 'pending' : 'passed';
  return {
    result,
    findings: withRegistrationHealth(findings, input.nodePools, baseline),
    counts,
    pending,
    replacedNodes: [...byNode.keys()].sort(),
    pods: podsChecked,
    pdbs: pdbsChecked,
  };
}

/**
 * Karpenter's own word on a NodePool whose replacements fail, quoted beside the failures of that NodePool (never a
 * failure by itself): NodeRegistrationHealthy=False, and whether it was already so before the rollout.
 */
export function withRegistrationHealth(
  findings: readonly GateFinding[],
  nodePools: readonly NodePoolView[],
  baseline: GateBaseline,
): GateFinding[] {
  return findings.map((f) => {
    const c = nodePools.find((p) => p.name === f.nodePool)?.conditions.NodeRegistrationHealthy;
    if (f.gate !== 'replacements' || c?.status !== 'False') return f;
    const before = baseline.registrationFailed.get(f.nodePool!) === (c.lastTransitionTime ?? '');
    const since = c.lastTransitionTime ? ` (since ${c.lastTransitionTime}${before ? ', before the rollout' : ''})` : '';
    return { ...f, evidence: [...f.evidence, `NodePool ${f.nodePool}: ${conditionText('NodeRegistrationHealthy', c)}${since}`] };
  });
}

type Add = (f: GateFinding) => void;

function replacement(
  c: NodeClaimView,
  node: NodeView | undefined,
  limits: Limits,
  now: Date,
  add: Add,
  pending: string[],
): void {
  const where = {
    nodePool: c.nodePool!,
    ...(c.nodeName ? { node: c.nodeName } : {}),
    ...(c.imageId ? { ami: c.imageId } : {}),
  };
  const health = replacementHealth(c, node, limits, now);
  if (health.verdict === 'healthy') return;
  if (health.verdict === 'pending') {
    pending.push(
      `nodeclaim/${c.name}: ${health.notYet.map((t) => conditionText(t, c.conditions[t])).join('; ')} (${humanDuration(health.waited)})`,
    );
    return;
  }
  if (health.code === 'REPLACEMENT-NOT-INITIALIZED') {
    add({
      gate: 'replacements',
      code: health.code,
      subject: `nodeclaim/${c.name}`,
      ...where,
      message: `replacement nodeclaim/${c.name} (NodePool ${c.nodePool}${c.imageId ? `, AMI ${c.imageId}` : ''}) is not Initialized ${humanDuration(health.waited)} after it was created (--init-deadline ${humanDuration(limits.initDeadlineMs)})`,
      evidence: health.notYet.map((t) => conditionText(t, c.conditions[t])),
    });
    return;
  }
  const n = health.node;
  add({
    gate: 'replacements',
    code: health.code,
    subject: `node/${n.name}`,
    ...where,
    message: `replaced node ${n.name} (NodePool ${c.nodePool}, AMI ${c.imageId ?? 'unknown'}) went NotReady after it initialized`,
    evidence: [
      notReadyText(n),
      ...(n.kubeletVersion ? [`kubelet ${n.kubeletVersion}${n.osImage ? `, ${n.osImage}` : ''}`] : []),
    ],
  });
}

function workload(p: PodView, c: NodeClaimView, limits: Limits, now: Date, add: Add, pending: string[]): void {
  const where = { nodePool: c.nodePool!, node: p.nodeName!, ...(c.imageId ? { ami: c.imageId } : {}) };
  const on = `on replaced node ${p.nodeName} (NodePool ${c.nodePool}${c.imageId ? `, AMI ${c.imageId}` : ''})`;
  const subject = `pod/${p.namespace}/${p.name}`;
  const health = podHealth(p, limits, now);
  if (health.verdict === 'healthy') return;
  if (health.verdict === 'pending') {
    pending.push(`pod/${p.namespace}/${p.name}: not Ready yet (${humanDuration(health.waited)})`);
    return;
  }
  const evidence = [...podEvidence(p), ...(p.owner ? [`owner ${p.owner}`] : [])];
  const name = `pod ${p.namespace}/${p.name} ${on}`;
  if (health.code === 'POD-FAILING')
    add({ gate: 'workloads', code: health.code, subject, ...where, message: `${name} is in ${health.reason}`, evidence });
  else if (health.code === 'POD-RESTARTING')
    add({
      gate: 'workloads',
      code: health.code,
      subject,
      ...where,
      message: `${name} restarted ${health.restarts} times (--max-restarts ${limits.maxRestarts})`,
      evidence,
    });
  else
    add({
      gate: 'workloads',
      code: health.code,
      subject,
      ...where,
      message: `${name} is not Ready ${humanDuration(health.waited)} after it was created (--pod-ready-deadline ${humanDuration(limits.podReadyDeadlineMs)})`,
      evidence: [`phase ${p.phase ?? 'unknown'}`, ...evidence],
    });
}
