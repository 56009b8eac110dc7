// The built-in health gates over the nodes this run replaced and the pods on them (README "Health gates"). Pure:
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
import { selectorMatches } from '../karpenter/convert.js';
import type { NodeClaimView, NodePoolView, NodeView, PdbView, PodView } from '../karpenter/views.js';
import { humanDuration } from '../text/words.js';
import {
  FAILING_REASONS,
  livePod,
  onTarget,
  pdbKey,
  workloadOf,
  type GateBaseline,
  type GateScope,
} from './baseline.js';
import type { GateRequest } from './request.js';

export type GateName = 'replacements' | 'workloads' | 'command';

export type FindingCode =
  | 'REPLACEMENT-NOT-INITIALIZED'
  | 'REPLACEMENT-DELETED'
  | 'COMMAND-FAILED'
  | 'NODE-NOT-READY'
  | 'STAGE-UNTESTED'
  | 'POD-FAILING'
  | 'POD-RESTARTING'
  | 'POD-NOT-READY'
  | 'PDB-BELOW-DESIRED'
  | 'GATE-CMD-FAILED'
  | 'GATE-CMD-TIMEOUT'
  | 'GATE-UNREADABLE';

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

const age = (since: string | undefined, now: Date): number => (since ? now.getTime() - Date.parse(since) : 0);
export const conditionText = (type: string, c: NodeClaimView['conditions'][string] | undefined): string =>
  c === undefined
    ? `${type} not set`
    : `${type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`;

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
  if (c.conditions.Initialized?.status !== 'True') {
    const waited = age(c.createdAt, now);
    const notYet = (['Launched', 'Registered', 'Initialized'] as const).filter(
      (t) => c.conditions[t]?.status !== 'True',
    );
    if (waited < limits.initDeadlineMs) {
      pending.push(
        `nodeclaim/${c.name}: ${notYet.map((t) => conditionText(t, c.conditions[t])).join('; ')} (${humanDuration(waited)})`,
      );
      return;
    }
    add({
      gate: 'replacements',
      code: 'REPLACEMENT-NOT-INITIALIZED',
      subject: `nodeclaim/${c.name}`,
      ...where,
      message: `replacement nodeclaim/${c.name} (NodePool ${c.nodePool}${c.imageId ? `, AMI ${c.imageId}` : ''}) is not Initialized ${humanDuration(waited)} after it was created (--init-deadline ${humanDuration(limits.initDeadlineMs)})`,
      evidence: notYet.map((t) => conditionText(t, c.conditions[t])),
    });
    return;
  }
  if (node === undefined || node.ready) return;
  const nr = node.notReady;
  add({
    gate: 'replacements',
    code: 'NODE-NOT-READY',
    subject: `node/${node.name}`,
    ...where,
    message: `replaced node ${node.name} (NodePool ${c.nodePool}, AMI ${c.imageId ?? 'unknown'}) went NotReady after it initialized`,
    evidence: [
      nr
        ? `Ready=${nr.status}${nr.reason ? ` ${nr.reason}` : ''}${nr.message ? `: ${nr.message}` : ''}${nr.since ? ` (since ${nr.since})` : ''}`
        : 'Ready is not True',
      ...(node.kubeletVersion ? [`kubelet ${node.kubeletVersion}${node.osImage ? `, ${node.osImage}` : ''}`] : []),
    ],
  });
}

function workload(p: PodView, c: NodeClaimView, limits: Limits, now: Date, add: Add, pending: string[]): void {
  const where = { nodePool: c.nodePool!, node: p.nodeName!, ...(c.imageId ? { ami: c.imageId } : {}) };
  const on = `on replaced node ${p.nodeName} (NodePool ${c.nodePool}${c.imageId ? `, AMI ${c.imageId}` : ''})`;
  const subject = `pod/${p.namespace}/${p.name}`;
  const restarts = p.restarts ?? 0;
  const evidence = [
    ...(p.waiting
      ? [`container ${p.waiting.container}: ${p.waiting.reason}${p.waiting.message ? `: ${p.waiting.message}` : ''}`]
      : []),
    ...(p.waiting?.lastExit ? [`last termination: ${p.waiting.lastExit}`] : []),
    ...(restarts > 0 ? [`${restarts} restart${restarts === 1 ? '' : 's'}`] : []),
    ...(p.owner ? [`owner ${p.owner}`] : []),
  ];
  if (p.waiting && FAILING_REASONS.has(p.waiting.reason)) {
    add({
      gate: 'workloads',
      code: 'POD-FAILING',
      subject,
      ...where,
      message: `pod ${p.namespace}/${p.name} ${on} is in ${p.waiting.reason}`,
      evidence,
    });
    return;
  }
  if (restarts > limits.maxRestarts) {
    add({
      gate: 'workloads',
      code: 'POD-RESTARTING',
      subject,
      ...where,
      message: `pod ${p.namespace}/${p.name} ${on} restarted ${restarts} times (--max-restarts ${limits.maxRestarts})`,
      evidence,
    });
    return;
  }
  if (p.ready === true) return;
  const waited = age(p.createdAt, now);
  if (waited < limits.podReadyDeadlineMs) {
    pending.push(`pod/${p.namespace}/${p.name}: not Ready yet (${humanDuration(waited)})`);
    return;
  }
  add({
    gate: 'workloads',
    code: 'POD-NOT-READY',
    subject,
    ...where,
    message: `pod ${p.namespace}/${p.name} ${on} is not Ready ${humanDuration(waited)} after it was created (--pod-ready-deadline ${humanDuration(limits.podReadyDeadlineMs)})`,
    evidence: [`phase ${p.phase ?? 'unknown'}`, ...evidence],
  });
}
