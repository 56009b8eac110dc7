// The gate's verdicts for each claim history, look by look, as the follow loop feeds the gate keeper: the watches'
// NodeClaims (live, and those deleted since), Nodes and Karpenter's events, through the pure pipeline the keeper runs
// (observeAttempts → evaluateHealth → judge → tallyEvaluation). Karpenter's behaviour behind each history: DOMAIN.md
// §1.4 (liveness, from the NodeClaim's creation) and §2.5 step 6 (a failed command).
import { describe, expect, it } from 'vitest';
import {
  awaitingJudgement,
  isDriftReplacement,
  newAttemptLedger,
  observeAttempts,
  type AttemptLook,
} from '../../src/gates/attempts.js';
import { takeBaseline, type GateScope } from '../../src/gates/baseline.js';
import { evaluateHealth } from '../../src/gates/health.js';
import { judge } from '../../src/gates/judge.js';
import { DEFAULT_GATES } from '../../src/gates/request.js';
import { tallyEvaluation, type GateTally } from '../../src/gates/tally.js';
import type { EventView, NodeClaimView, NodeView } from '../../src/karpenter/views.js';
import { at, event, iso, nodeClaim, nodeFor, type NodeClaimOptions } from '../rollout/factories.js';

const scope: GateScope = { nodePools: ['general'], targetImageIds: { default: ['ami-new'] } };
const old = nodeClaim({ name: 'general-old1', drifted: true });
const oldNode = nodeFor(old);
const baseline = takeBaseline(
  { nodeClaims: [old], nodes: [oldNode], pods: [], pdbs: [], nodePools: [] },
  scope,
  at(0),
);

/** Picked by a drift command at `minute`: DisruptionReason=True/Drifted then, the Node tainted. */
const picked = (minute: number, o: Partial<NodeClaimView> = {}): NodeClaimView => ({
  ...old,
  ...o,
  conditions: {
    ...old.conditions,
    DisruptionReason: {
      status: 'True',
      reason: 'Drifted',
      message: 'Drifted',
      lastTransitionTime: iso(at(minute)),
    },
  },
});
const tainted: NodeView = { ...oldNode, taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] };
/** The replacement its command created at `minute`. */
const replacement = (phase: 'created' | 'launched' | 'registered' | 'initialized', o: NodeClaimOptions = {}) =>
  nodeClaim({
    name: 'general-new1',
    phase,
    createdAt: iso(at(2)),
    launchedAt: at(2),
    ...(phase === 'created' ? {} : { imageId: 'ami-new' }),
    ...o,
  });
const deleted = (c: NodeClaimView, minute: number): NodeClaimView => ({
  ...c,
  deleting: true,
  deletionTimestamp: iso(at(minute)),
});
const waiting = event({
  uid: 'ev-wait',
  reason: 'DisruptionWaitingReadiness',
  message: 'Waiting on readiness to continue disruption',
  involvedKind: 'NodeClaim',
  involvedName: 'general-new1',
  count: 12,
  firstTimestamp: iso(at(2)),
  lastTimestamp: iso(at(16)),
});
const ice = event({
  uid: 'ev-ice',
  type: 'Warning',
  reason: 'InsufficientCapacityError',
  message: 'NodeClaim general-new1 event: all requested instance types were unavailable during launch',
  involvedKind: 'NodeClaim',
  involvedName: 'general-new1',
  firstTimestamp: iso(at(2)),
  lastTimestamp: iso(at(2)),
});

const underutilized = { status: 'True' as const, reason: 'Underutilized', message: 'Underutilized' };

/**
 * A launch that keeps failing, as core records a CreateError (launch.go) with the AWS provider's reason and message
 * (karpenter-provider-aws v1.14.1 pkg/errors/errors.go ToReasonMessage); liveness deletes it 5 minutes after creation.
 */
const launchFailing = (reason: string, message: string) =>
  replacement('created', {
    conditions: { Launched: { status: 'Unknown', reason, message, lastTransitionTime: iso(at(2)) } },
  });
const spotQuota = launchFailing(
  'SpotQuotaExceeded',
  'A spot instance launch was requested but this would exceed your spot instance quota',
);
const enaRefused = launchFailing('LaunchFailed', 'Instance launch failed');
const amiNotFound = launchFailing(
  'AMINotFound',
  "AMI used for instance launch either does not exist or you don't have permissions to use it",
);
/** The second replacement of the same old node, picked again at `minute`. */
const second = (phase: 'created' | 'launched', minute: number) =>
  replacement(phase, { name: 'general-new2', createdAt: iso(at(minute)), launchedAt: at(minute) });

interface Look {
  minute: number;
  /** Seconds past the minute: a deletion without Karpenter's Warning is counted EVENT_GRACE_MS after it shows. */
  second?: number;
  claims: NodeClaimView[];
  nodes?: NodeView[];
  /** Deleted since the follow began (the snapshot's `departed`). */
  departed?: NodeClaimView[];
  events?: EventView[];
}

/** Each look through the keeper's pure pipeline; what the gate says after each (`-` where nothing is reported). */
function verdicts(looks: Look[], failureLimit = 3) {
  const ledger = newAttemptLedger();
  let tally: GateTally = { failures: 0 };
  return looks.map((l) => {
    const nodes = new Map((l.nodes ?? l.claims.filter((c) => c.nodeName).map((c) => nodeFor(c))).map((n) => [n.name, n]));
    const look: AttemptLook = {
      claims: l.claims,
      departed: new Map((l.departed ?? []).map((c) => [c.name, c])),
      nodes,
      events: l.events ?? [],
    };
    const now = at(l.minute, l.second);
    const attempts = observeAttempts(ledger, look, scope, baseline, now);
    const health = evaluateHealth(
      { nodeClaims: l.claims, nodes, pods: [], pdbs: [], nodePools: [] },
      scope,
      baseline,
      DEFAULT_GATES,
      now,
    );
    const j = judge(health, attempts, [], { baseline, awaiting: awaitingJudgement(ledger) });
    const counted = tallyEvaluation(tally, j.result, failureLimit, now, 'health', j);
    tally = counted.tally;
    return {
      result: j.result,
      codes: j.findings.map((f) => f.code).join(' ') || '-',
      failures: tally.failures,
      ...(j.notes.length > 0 ? { notes: j.notes.map((f) => `${f.code} ${f.subject}`).join(' ') } : {}),
      ...(counted.halt ? { halt: counted.halt } : {}),
    };
  });
}

describe("the gate's verdicts for each claim history", () => {
  it.each<[string, Look[], Array<{ result: string; codes: string; failures: number; notes?: string; halt?: string }>]>([
    [
      'deleted before Initialized (liveness: never registered): a failed replacement, counted when its deletion shows',
      [
        { minute: 3, claims: [picked(2), replacement('launched')], nodes: [tainted] },
        { minute: 17, claims: [picked(2), deleted(replacement('launched'), 17)], nodes: [tainted], events: [waiting] },
        // Liveness publishes no event: after EVENT_GRACE_MS without a Warning it counts without one.
        { minute: 17, second: 3, claims: [picked(2), deleted(replacement('launched'), 17)], nodes: [tainted], events: [waiting] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'REPLACEMENT-DELETED', failures: 1 },
      ],
    ],
    [
      'deleted between two looks (insufficient capacity): found among the departed, never launched, a note and no failure',
      [
        { minute: 2, claims: [picked(2)], nodes: [tainted] },
        { minute: 3, claims: [picked(2)], nodes: [tainted], departed: [deleted(replacement('created'), 2)], events: [ice] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0, notes: 'CAPACITY-REFUSED nodeclaim/general-new1' },
      ],
    ],
    [
      'command failed (DisruptionReason and the taint removed, not deleted), then its replacement deleted: one failure',
      [
        { minute: 3, claims: [picked(2), replacement('launched')], nodes: [tainted] },
        { minute: 11, claims: [old, replacement('launched')], nodes: [oldNode] },
        { minute: 17, claims: [old], nodes: [oldNode], departed: [deleted(replacement('launched'), 17)] },
        { minute: 17, second: 3, claims: [old], nodes: [oldNode], departed: [deleted(replacement('launched'), 17)] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'COMMAND-FAILED', failures: 1 },
        { result: 'pending', codes: '-', failures: 1 },
        { result: 'failed', codes: 'REPLACEMENT-DELETED', failures: 1 },
      ],
    ],
    [
      'replacement deleted (insufficient capacity), then its command failed: neither counts, the command given up for it',
      [
        { minute: 2, claims: [picked(2), replacement('created')], nodes: [tainted] },
        { minute: 3, claims: [picked(2)], nodes: [tainted], departed: [deleted(replacement('created'), 2)], events: [ice] },
        { minute: 4, claims: [old], nodes: [oldNode], departed: [deleted(replacement('created'), 2)], events: [ice] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0, notes: 'CAPACITY-REFUSED nodeclaim/general-new1' },
        { result: 'passed', codes: '-', failures: 0 },
      ],
    ],
    [
      'refused for capacity and its command given up in one look, the event late: the command waits for it, then neither counts',
      [
        { minute: 2, claims: [picked(2), replacement('created')], nodes: [tainted] },
        { minute: 3, claims: [old], nodes: [oldNode], departed: [deleted(replacement('created'), 2)] },
        { minute: 3, second: 1, claims: [old], nodes: [oldNode], departed: [deleted(replacement('created'), 2)], events: [ice] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0, notes: 'CAPACITY-REFUSED nodeclaim/general-new1' },
      ],
    ],
    [
      'deleted before it launched and its command given up, no event ever (NodeClassNotReady has none): one failure',
      [
        { minute: 2, claims: [picked(2), replacement('created')], nodes: [tainted] },
        { minute: 3, claims: [old], nodes: [oldNode], departed: [deleted(replacement('created'), 2)] },
        { minute: 3, second: 3, claims: [old], nodes: [oldNode], departed: [deleted(replacement('created'), 2)] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'REPLACEMENT-DELETED COMMAND-FAILED', failures: 1 },
      ],
    ],
    [
      'Launched=Unknown SpotQuotaExceeded (a capacity reason), deleted by liveness, its command given up: neither counts',
      [
        { minute: 3, claims: [picked(2), spotQuota], nodes: [tainted] },
        { minute: 7, claims: [picked(2), deleted(spotQuota, 7)], nodes: [tainted] },
        { minute: 8, claims: [old], nodes: [oldNode], departed: [deleted(spotQuota, 7)] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0, notes: 'CAPACITY-REFUSED nodeclaim/general-new1' },
        { result: 'passed', codes: '-', failures: 0 },
      ],
    ],
    [
      "Launched=Unknown LaunchFailed (EC2 refusing the image), deleted by liveness, its command given up: one failure",
      [
        { minute: 3, claims: [picked(2), enaRefused], nodes: [tainted] },
        { minute: 7, claims: [picked(2), deleted(enaRefused, 7)], nodes: [tainted] },
        { minute: 7, second: 3, claims: [picked(2), deleted(enaRefused, 7)], nodes: [tainted] },
        { minute: 8, claims: [old], nodes: [oldNode], departed: [deleted(enaRefused, 7)] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'REPLACEMENT-DELETED', failures: 1 },
        { result: 'failed', codes: 'COMMAND-FAILED', failures: 1 },
      ],
    ],
    [
      'Launched=Unknown AMINotFound, liveness-deleted in the look its command is given up: the command counts at once, one failure',
      [
        { minute: 3, claims: [picked(2), amiNotFound], nodes: [tainted] },
        // Deleted 5 minutes after its creation, by liveness: no capacity refusal, nothing to wait for.
        { minute: 8, claims: [old], nodes: [oldNode], departed: [deleted(amiNotFound, 7)] },
        { minute: 8, second: 3, claims: [old], nodes: [oldNode], departed: [deleted(amiNotFound, 7)] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'COMMAND-FAILED', failures: 1 },
        { result: 'failed', codes: 'REPLACEMENT-DELETED', failures: 1 },
      ],
    ],
    [
      'refused for capacity, picked again, the next replacement launches and never registers: that attempt counts, once',
      [
        { minute: 2, claims: [picked(2), replacement('created')], nodes: [tainted] },
        { minute: 3, claims: [old], nodes: [oldNode], departed: [deleted(replacement('created'), 2)], events: [ice] },
        { minute: 4, claims: [picked(4), second('launched', 4)], nodes: [tainted], departed: [deleted(replacement('created'), 2)], events: [ice] },
        // The queue gives the command up 10 minutes after it started; liveness deletes the replacement at 15.
        { minute: 13, claims: [old, second('launched', 4)], nodes: [oldNode], events: [ice] },
        { minute: 19, claims: [old], nodes: [oldNode], departed: [deleted(second('launched', 4), 19)], events: [ice] },
        { minute: 19, second: 3, claims: [old], nodes: [oldNode], departed: [deleted(second('launched', 4), 19)], events: [ice] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0, notes: 'CAPACITY-REFUSED nodeclaim/general-new1' },
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'COMMAND-FAILED', failures: 1 },
        { result: 'pending', codes: '-', failures: 1 },
        { result: 'failed', codes: 'REPLACEMENT-DELETED', failures: 1 },
      ],
    ],
    [
      'a replacement past --init-deadline (measured from its creation) fails on every evaluation until it is gone',
      [
        { minute: 3, claims: [picked(2), replacement('registered')], nodes: [tainted] },
        { minute: 12, claims: [picked(2), replacement('registered')], nodes: [tainted] },
        { minute: 13, claims: [picked(2), replacement('registered')], nodes: [tainted] },
      ],
      [
        { result: 'pending', codes: '-', failures: 0 },
        { result: 'failed', codes: 'REPLACEMENT-NOT-INITIALIZED', failures: 1 },
        { result: 'failed', codes: 'REPLACEMENT-NOT-INITIALIZED', failures: 2 },
      ],
    ],
    [
      'command failed and picked again between two looks: the new lastTransitionTime shows it',
      [
        { minute: 3, claims: [picked(2)], nodes: [tainted] },
        { minute: 13, claims: [picked(12)], nodes: [tainted] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'failed', codes: 'COMMAND-FAILED', failures: 1 },
      ],
    ],
    [
      'a command given up in two steps (DisruptionReason cleared, then the taint): one failure, when both are gone',
      [
        { minute: 3, claims: [picked(2)], nodes: [tainted] },
        { minute: 12, claims: [old], nodes: [tainted] },
        { minute: 12, claims: [old], nodes: [oldNode] },
        { minute: 13, claims: [old], nodes: [oldNode] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'failed', codes: 'COMMAND-FAILED', failures: 1 },
        { result: 'passed', codes: '-', failures: 1 },
      ],
    ],
    [
      'NotReady after Initialized: the health gate fails it, on every evaluation',
      [
        { minute: 5, claims: [deleted(picked(2), 5), replacement('initialized')] },
        {
          minute: 7,
          claims: [replacement('initialized')],
          nodes: [{ ...nodeFor(replacement('initialized')), ready: false }],
        },
        {
          minute: 8,
          claims: [replacement('initialized')],
          nodes: [{ ...nodeFor(replacement('initialized')), ready: false }],
        },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'failed', codes: 'NODE-NOT-READY', failures: 1 },
        { result: 'failed', codes: 'NODE-NOT-READY', failures: 2 },
      ],
    ],
    [
      'empty-node delete: picked, then deleted without a replacement: no failure (and nothing tested, coverage.ts)',
      [
        { minute: 3, claims: [picked(2)], nodes: [tainted] },
        { minute: 4, claims: [deleted(picked(2), 4)], nodes: [tainted] },
        { minute: 5, claims: [], departed: [deleted(picked(2), 4)] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
      ],
    ],
    [
      'a replacement Initialized, then deleted (consolidation later): not a failure',
      [
        { minute: 5, claims: [replacement('initialized')] },
        { minute: 30, claims: [], departed: [deleted(replacement('initialized'), 30)] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
      ],
    ],
    [
      'the taint before DisruptionReason (Karpenter taints first): one command, not a new one',
      [
        { minute: 2, claims: [old], nodes: [tainted] },
        { minute: 3, claims: [picked(2)], nodes: [tainted] },
        { minute: 4, claims: [deleted(picked(2), 4)], nodes: [tainted] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
      ],
    ],
    [
      "a consolidation command given up: not the rollout's",
      [
        { minute: 4, claims: [{ ...old, conditions: { ...old.conditions, DisruptionReason: underutilized } }] },
        { minute: 5, claims: [old] },
      ],
      [
        { result: 'passed', codes: '-', failures: 0 },
        { result: 'passed', codes: '-', failures: 0 },
      ],
    ],
  ])('%s', (_name, looks, expected) => {
    expect(verdicts(looks)).toEqual(expected);
  });

  it('the default --failure-limit 1 halts at the first failed command, wherever the wave stands', () => {
    const [, second] = verdicts(
      [
        { minute: 3, claims: [picked(2), replacement('launched')], nodes: [tainted] },
        { minute: 9, claims: [old, replacement('launched')], nodes: [oldNode] },
      ],
      1,
    );
    expect(second).toEqual({ result: 'failed', codes: 'COMMAND-FAILED', failures: 1, halt: 'failed' });
  });
});

describe("the findings, in Karpenter's words", () => {
  const run = (looks: Look[]) => {
    const ledger = newAttemptLedger();
    return looks.flatMap((l) =>
      observeAttempts(
        ledger,
        {
          claims: l.claims,
          departed: new Map((l.departed ?? []).map((c) => [c.name, c])),
          nodes: new Map((l.nodes ?? []).map((n) => [n.name, n])),
          events: l.events ?? [],
        },
        scope,
        baseline,
        at(l.minute, l.second),
      ),
    );
  };

  it('a replacement liveness deleted: its conditions when last seen and its events', () => {
    const [f] = run([
      { minute: 3, claims: [replacement('launched')] },
      { minute: 17, claims: [deleted(replacement('launched'), 17)], events: [waiting] },
      { minute: 17, second: 3, claims: [deleted(replacement('launched'), 17)], events: [waiting] },
    ]);
    expect(f).toEqual({
      kind: 'replacement',
      counts: true,
      finding: {
        gate: 'replacements',
        code: 'REPLACEMENT-DELETED',
        subject: 'nodeclaim/general-new1',
        nodePool: 'general',
        ami: 'ami-new',
        message:
          "replacement nodeclaim/general-new1 (NodePool general, AMI ami-new) was deleted before it was Initialized, 15m after it was created: its node never registered; Karpenter's liveness check deletes a NodeClaim not registered 15m after its creation",
        evidence: [
          'last seen: Registered=Unknown NodeNotFound: Node not registered with cluster',
          'last seen: Initialized=Unknown NodeNotFound: Node not registered with cluster',
          'created 2025-08-20T14:02:00Z, deleted 2025-08-20T14:17:00Z',
          'event DisruptionWaitingReadiness on NodeClaim/general-new1 (63s ago, x12 over 15m): "Waiting on readiness to continue disruption"',
        ],
      },
    });
  });

  it('a launch refused for insufficient capacity: a note, never launched, with the event', () => {
    const [f] = run([{ minute: 3, claims: [], departed: [deleted(replacement('created'), 2)], events: [ice] }]);
    expect(f).toEqual({
      kind: 'refusal',
      counts: false,
      finding: {
        gate: 'replacements',
        code: 'CAPACITY-REFUSED',
        subject: 'nodeclaim/general-new1',
        nodePool: 'general',
        message:
          'replacement nodeclaim/general-new1 (NodePool general) was deleted 0s after it was created without launching: EC2 refused it for capacity (InsufficientCapacityError), no fault of the AMI, so it is not counted; Karpenter gives up a drift command that waited on it and picks its old node again',
        evidence: [
          'event InsufficientCapacityError on NodeClaim/general-new1 (60s ago): "NodeClaim general-new1 event: all requested instance types were unavailable during launch"',
          'created 2025-08-20T14:02:00Z, deleted 2025-08-20T14:02:00Z',
        ],
      },
    });
  });

  it('a launch refused with a capacity reason on Launched (no event): the condition as last seen', () => {
    const [f] = run([{ minute: 7, claims: [], departed: [deleted(spotQuota, 7)] }]);
    expect(f!.kind).toBe('refusal');
    expect(f!.finding.message).toMatch(/was deleted 5m after it was created without launching: EC2 refused it for capacity \(SpotQuotaExceeded\)/);
    expect(f!.finding.evidence[0]).toBe(
      'last seen: Launched=Unknown SpotQuotaExceeded: A spot instance launch was requested but this would exceed your spot instance quota',
    );
  });

  it('a launch the image fails (LaunchFailed): a failed replacement, not a refusal', () => {
    const [f] = run([
      { minute: 7, claims: [], departed: [deleted(enaRefused, 7)] },
      { minute: 7, second: 3, claims: [], departed: [deleted(enaRefused, 7)] },
    ]);
    expect(f).toMatchObject({ kind: 'replacement', counts: true, finding: { code: 'REPLACEMENT-DELETED' } });
    expect(f!.finding.evidence[0]).toBe('last seen: Launched=Unknown LaunchFailed: Instance launch failed');
  });

  it("a deletion seen before Karpenter's Warning (its own watch, an asynchronous recorder) waits for it, and quotes it", () => {
    const gone = deleted(replacement('created'), 2);
    const looks = run([
      { minute: 2, claims: [replacement('created')] },
      { minute: 3, claims: [], departed: [gone] },
      { minute: 3, second: 1, claims: [], departed: [gone], events: [ice] },
    ]);
    expect(looks).toHaveLength(1);
    expect(looks[0]!.kind).toBe('refusal');
    expect(looks[0]!.finding.evidence[0]).toMatch(/^event InsufficientCapacityError on NodeClaim\/general-new1/);
  });

  it('a failed command names the old node and the replacement it waited on, with its events', () => {
    const [f] = run([
      { minute: 3, claims: [picked(2), replacement('launched')], nodes: [tainted] },
      { minute: 12, claims: [old, replacement('launched')], nodes: [oldNode], events: [{ ...waiting, count: 10, lastTimestamp: iso(at(11)) }] },
    ]);
    expect(f!.finding).toEqual({
      gate: 'replacements',
      code: 'COMMAND-FAILED',
      subject: 'nodeclaim/general-old1',
      nodePool: 'general',
      node: 'ip-general-old1',
      ami: 'ami-new',
      message:
        'Karpenter gave up its drift command on nodeclaim/general-old1 (node ip-general-old1, NodePool general): its replacement was deleted or not Initialized in time, so the old node was let go without being replaced',
      evidence: [
        'DisruptionReason=True Drifted since 2025-08-20T14:02:00Z: removed, and the taint with it, the NodeClaim not deleted',
        'replacement nodeclaim/general-new1 (AMI ami-new): Registered=Unknown NodeNotFound: Node not registered with cluster; Initialized=Unknown NodeNotFound: Node not registered with cluster',
        'event DisruptionWaitingReadiness on NodeClaim/general-new1 (60s ago, x10 over 10m): "Waiting on readiness to continue disruption"',
      ],
    });
  });

  it('a NodeClaim of a NodePool out of scope, or of the baseline still launching, is not judged', () => {
    const elsewhere = deleted(replacement('launched', { nodePool: 'batch' }), 17);
    expect(run([{ minute: 17, claims: [], departed: [elsewhere] }])).toEqual([]);
  });
});

// Which replacements Karpenter launched for a drift command (only those test an AMI for a stage: coverage.ts), look by
// look: its DisruptionLaunching event (karpenter/events.ts), or creation with a drift command of the NodePool, as
// attempts.ts links a command to its replacements; a NodeClaim from before the run's baseline counts as an earlier
// run's. A scale-up (the provisioner's NodeClaim for pending pods) has neither.
describe('drift replacements, as the ledger tells them from scale-ups', () => {
  const launchingEvent = (name: string, message = 'Launching NodeClaim: Drifted') =>
    event({ uid: `ev-launch-${name}`, reason: 'DisruptionLaunching', message, involvedKind: 'NodeClaim', involvedName: name });
  const drift = (looks: Look[], name = 'general-new1') => {
    const ledger = newAttemptLedger();
    for (const l of looks) {
      const nodes = new Map((l.nodes ?? l.claims.filter((c) => c.nodeName).map((c) => nodeFor(c))).map((n) => [n.name, n]));
      observeAttempts(ledger, { claims: l.claims, departed: new Map(), nodes, events: l.events ?? [] }, scope, baseline, at(l.minute, l.second));
    }
    return isDriftReplacement(ledger, baseline, name);
  };
  /** A NodeClaim the provisioner launched at `minute` (no command anywhere near). */
  const scaleUp = (minute: number) => replacement('launched', { createdAt: iso(at(minute)), launchedAt: at(minute) });

  it.each<[string, Look[], boolean]>([
    ['its DisruptionLaunching event', [{ minute: 3, claims: [old, scaleUp(3)], events: [launchingEvent('general-new1')] }], true],
    ['created 0 s after its command marked the old node (the event not seen)', [{ minute: 3, claims: [picked(2), replacement('created')], nodes: [tainted] }], true],
    ['created 20 s after the mark', [{ minute: 3, claims: [picked(2), replacement('created', { createdAt: iso(at(2, 20)) })], nodes: [tainted] }], true],
    ['created 45 s after the mark: a scale-up beside a command', [{ minute: 3, claims: [picked(2), replacement('created', { createdAt: iso(at(2, 45)) })], nodes: [tainted] }], false],
    ["created with a command of another NodePool's", [{ minute: 3, claims: [picked(2, { nodePool: 'batch' }), replacement('created')], nodes: [tainted] }], false],
    ['no event, no command: a scale-up', [{ minute: 3, claims: [old, scaleUp(3)] }], false],
    ['a consolidation launch: not drift', [{ minute: 3, claims: [old, scaleUp(3)], events: [launchingEvent('general-new1', 'Launching NodeClaim: Underutilized')] }], false],
    // Remembered: the event ages out of the window, the mark goes with the old NodeClaim.
    [
      'seen once, still known after its evidence is gone',
      [
        { minute: 3, claims: [picked(2), replacement('launched')], nodes: [tainted] },
        { minute: 9, claims: [replacement('initialized')] },
      ],
      true,
    ],
    ['a NodeClaim on the target from before the baseline: an earlier run\'s', [{ minute: 3, claims: [old] }], true],
  ])('%s', (_name, looks, expected) => {
    expect(drift(looks, looks[0]!.claims.some((c) => c.name === 'general-new1') ? 'general-new1' : 'general-old1')).toBe(expected);
  });
});
