// The simulated Karpenter: its controllers run in Karpenter's order on every pass, reading and writing only through
// the sandbox API store (so every change is validated, versioned and seen by watches, as a real controller's would be).
// Passes run every `tickMs` of real time against a clock that runs `speed` times faster; tests drive `pass()` by hand
// with a ManualClock instead.
// In the background each controller runs as its own step, one turn of the event loop, and the loop yields between
// steps (setImmediate), so API requests are answered between them; a step's work is bounded by `ctx.budget` (items
// acted on) and `work` records what each step wrote, so tests can check the bound without timing anything.
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import type { AmiCatalog } from '../aws/types.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import { passIntervalMs, type SimClock } from './clock.js';
import type { SeededRandom } from '../scenarios/random.js';
import type { BudgetSupport, NodeClassConditions } from '../scenarios/versions.js';
import type { RegistrationHealthRule } from '../../karpenter/registration-health.js';
import {
  DEFAULT_TIMING,
  NODECLAIMS,
  WorkBudget,
  type SimContext,
  type SimFaults,
  type SimTiming,
  type TakenNames,
} from './context.js';
import { reconcileNotReadyNodes } from './bad-ami.js';
import { reconcileCrashLoops } from './crash-loop.js';
import { reconcileDaemonSets } from './daemonsets.js';
import { reconcileDisruption } from './disruption-controller.js';
import { reconcileDisruptionQueue } from './disruption-queue.js';
import { DisruptionLog } from './disruption-log.js';
import { DueQueue } from './due-queue.js';
import { reconcileDrift } from './drift-controller.js';
import { EventRecorder } from './events.js';
import { reconcileLifecycle } from './lifecycle-controller.js';
import { reconcileNodeClasses } from './nodeclass-controller.js';
import { NodePoolCounts } from './nodepool-counts.js';
import { reconcileNodePools } from './nodepool-controller.js';
import { reconcileRegistrationHealth } from './registration-health.js';
import { DaemonSets, NodeUsage, SchedulableNodes } from './indexes.js';
import { reconcileProvisioner } from './provisioner.js';
import { awaitKubeScheduler, reconcileKubeScheduler, reconcilePods, schedulable } from './pods.js';
import { ConditionTransitions } from './condition-transitions.js';
import { reconcileStatusEvents } from './status-events.js';
import { reconcileTermination } from './termination-controller.js';
import type { HashVersions } from './hashes.js';
import { reconcileHashes } from './hash-controller.js';

export interface SimulatorOptions {
  store: KubeStore;
  catalog: AmiCatalog;
  clock: SimClock;
  rng: SeededRandom;
  /** Names the cluster already uses (the scenario's); default: none. */
  taken?: TakenNames;
  controlPlaneVersion: string;
  karpenterApi?: 'v1' | 'v1beta1';
  /** The static-drift hash versions the release writes (default: v1.12+'s, or v1beta1's). */
  hashVersions?: HashVersions;
  /** What the release's NodePools have of budgets (scenarios/versions.ts); default: `by-reason` on v1, `any-reason` on v1beta1. */
  budgets?: BudgetSupport;
  /** How the release keeps NodeRegistrationHealthy (scenarios/versions.ts); default: `buffer` on v1, none on v1beta1. */
  registrationHealth?: RegistrationHealthRule | 'none';
  /** Which conditions the release's EC2NodeClass status has (scenarios/versions.ts); default: `all`. */
  nodeClassConditions?: NodeClassConditions;
  timing?: Partial<SimTiming>;
  faults?: SimFaults;
  /** Karpenter's log lines (`disrupting node(s)`, `launched nodeclaim`, ...), with the simulated time. */
  log?: (line: string) => void;
  /** Store writes one controller step may make before leaving the rest to the next pass (default 200): WorkBudget. */
  workBudget?: number;
}

/** What the simulator has done, for tests and benchmarks: passes, steps, and the most one step wrote. */
export interface SimulatorWork {
  passes: number;
  steps: number;
  /** Store writes (resourceVersions) of the busiest single step so far. */
  maxWritesPerStep: number;
  /** Which step that was. */
  busiestStep: string;
}

type Step = readonly [name: string, run: (ctx: SimContext) => void];

/** The least real time between two background passes: a timer's turn, for the API's sockets and timers too. */
const MIN_SLEEP_MS = 2;

// Karpenter's order, in which one pass settles: class status, the static-drift hashes, NodePool status (counts,
// readiness, registration health), the disruption queue (before the lifecycle, so a replacement initialized in this
// pass is seen on the queue's next look, as its one-second requeue sees it), lifecycle, drift, kube-scheduler's
// bindings due by now (they race Karpenter's scheduling simulation in a real cluster), disruption, the provisioner,
// termination; then the rest of the cluster: DaemonSet pods for new nodes, pods bound and started, a bad AMI's nodes
// going NotReady, and crash-looping containers restarted; last, operatorpkg's events for the condition transitions of
// the pass.
const STEPS: readonly Step[] = [
  ['nodeclass', reconcileNodeClasses],
  ['hash', reconcileHashes],
  ['nodepool', reconcileNodePools],
  ['registration-health', reconcileRegistrationHealth],
  ['disruption-queue', reconcileDisruptionQueue],
  ['lifecycle', reconcileLifecycle],
  ['drift', reconcileDrift],
  ['kube-scheduler', reconcileKubeScheduler],
  ['disruption', reconcileDisruption],
  ['provisioner', reconcileProvisioner],
  ['termination', reconcileTermination],
  ['daemonsets', reconcileDaemonSets],
  ['pods', reconcilePods],
  ['not-ready', reconcileNotReadyNodes],
  ['crash-loops', reconcileCrashLoops],
  ['status-events', reconcileStatusEvents],
];

export class KarpenterSimulator {
  readonly ctx: SimContext;
  readonly work: SimulatorWork = { passes: 0, steps: 0, maxWritesPerStep: 0, busiestStep: '' };
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** The last error a pass threw (a pass that fails is retried on the next tick, as a controller requeues). */
  lastError: Error | undefined;
  /**
   * Every drift command started (the last 10,000), with the NodePool's allowance then and when the old NodeClaim was
   * gone or the command failed: `inFlight(at)` and `maxInFlight()` per NodePool, for tests of pacing.
   */
  readonly disruptions: DisruptionLog;
  private readonly unsubscribe: () => void;

  constructor(options: SimulatorOptions) {
    const timing = { ...DEFAULT_TIMING, ...options.timing };
    const faults = options.faults ?? {};
    this.disruptions = new DisruptionLog();
    this.ctx = {
      store: options.store,
      budget: new WorkBudget(() => options.store.objects.resourceVersion, options.workBudget),
      schedulableNodes: new SchedulableNodes(options.store, schedulable),
      nodeUsage: new NodeUsage(options.store),
      conditionTransitions: new ConditionTransitions(options.store),
      nodePoolCounts: new NodePoolCounts(options.store),
      daemonSets: new DaemonSets(options.store),
      clock: options.clock,
      events: new EventRecorder(options.store, options.clock),
      rng: options.rng,
      taken: options.taken ?? { names: new Set(), dnsNames: new Set(), instanceIds: new Set() },
      timing,
      faults,
      catalog: options.catalog,
      controlPlaneVersion: options.controlPlaneVersion,
      karpenterApi: options.karpenterApi ?? 'v1',
      hashVersions:
        options.hashVersions ?? (options.karpenterApi === 'v1beta1' ? { nodePool: 'v2', nodeClass: 'v2' } : { nodePool: 'v3', nodeClass: 'v5' }),
      budgets: options.budgets ?? (options.karpenterApi === 'v1beta1' ? 'any-reason' : 'by-reason'),
      nodeClassConditions: options.nodeClassConditions ?? 'all',
      registrationHealthRule:
        options.registrationHealth === 'none' || (!options.registrationHealth && options.karpenterApi === 'v1beta1')
          ? undefined
          : (options.registrationHealth ?? 'buffer'),
      memory: {
        driftSeenAt: new Map(),
        commands: new Map(),
        lifecycle: new Map(),
        createdAt: new Map(),
        registrationHealth: new Map(),
        launchFailuresLeft: faults.launchFailures?.count ?? 0,
        terminating: new Map(),
        starting: new Map(),
        unscheduled: new Map(),
        pending: new Set(),
        pendingRetriggerAt: 0,
        pdbAllowed: new Map(),
        pdbsByNamespace: new Map(),
        pdbsByLabels: new Map(),
        deletingSince: new Map(),
        terminationAt: new Map(),
        instanceGoneAt: new Map(),
        nodeClassRetryAt: new Map(),
        nodeClassReconciled: new Map(),
        nextDisruptionPass: Number.NEGATIVE_INFINITY,
        nominatedUntil: new Map(),
        hashes: new Map(),
        hostnamePlaceholders: 0,
        notReady: new Map(),
        crashLoops: new DueQueue(),
      },
      disruptions: this.disruptions,
      log: (line) => options.log?.(`${options.clock.wall().toISOString()} ${line}`),
    };
    // A command is over when its old NodeClaim is gone, however it went (the termination controller, or a client
    // that removed the finalizer): the store's change feed sees every way. It also says when each NodeClaim was
    // created, in simulated time, whoever created it: liveness counts from there. And kube-scheduler sees every pod
    // added without a node, whoever created it.
    const createdAt = this.ctx.memory.createdAt;
    this.unsubscribe = options.store.objects.subscribe((change) => {
      if (change.groupResource === 'pods' && change.type === 'ADDED') awaitKubeScheduler(this.ctx, change.object);
      if (change.groupResource !== NODECLAIMS) return;
      const name = change.object.metadata.name ?? '';
      if (change.type === 'ADDED') createdAt.set(name, options.clock.now().getTime());
      else if (change.type === 'DELETED') {
        // What the controllers remembered of it goes with it (Karpenter's cluster state forgets a deleted NodeClaim):
        // a rollout of thousands of NodeClaims leaves nothing behind.
        createdAt.delete(name);
        this.ctx.memory.nominatedUntil.delete(name);
        this.ctx.memory.lifecycle.delete(name);
        this.ctx.memory.driftSeenAt.delete(name);
        this.disruptions.gone(name, options.clock.wall());
      }
    });
  }

  /** One reconcile of every controller, in the order Karpenter's would settle, without yielding (tests). */
  pass(): void {
    this.beginPass();
    for (const step of STEPS) this.step(step);
  }

  /**
   * Runs passes in the background, one every `tickMs` of real time, yielding to the event loop between steps; sooner
   * when the disruption controller's next pass falls due before that (it requeues 1 s after a pass that started a
   * command), so a fast clock plays Karpenter's passes a simulated second apart rather than a tick apart.
   */
  start(tickMs = passIntervalMs(this.ctx.clock)): void {
    if (this.loop) return;
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
        const due = this.ctx.clock.realMs(this.ctx.memory.nextDisruptionPass - this.ctx.clock.now().getTime());
        await sleep(Math.max(MIN_SLEEP_MS, Math.min(tickMs, due)), undefined, { ref: false });
        if (this.stopped) return;
        try {
          this.beginPass();
          for (const step of STEPS) {
            if (this.stopped) return;
            this.step(step);
            // A ref'd immediate: an unref'd one does not stop libuv's poll from blocking, so it would wait for the next
            // I/O or timer and an idle sandbox would stall mid-pass. The timer between passes stays unref'd.
            await yieldToLoop();
          }
          this.lastError = undefined;
        } catch (err) {
          this.lastError = err instanceof Error ? err : new Error(String(err));
          this.ctx.log(`reconciler error: ${this.lastError.message}`);
        }
      }
    })();
  }

  /** Stops after the current step at most: no step runs after this returns. */
  stop(): void {
    this.stopped = true;
    this.loop = undefined;
    this.ctx.schedulableNodes.close();
    this.ctx.nodeUsage.close();
    this.ctx.conditionTransitions.close();
    this.ctx.daemonSets.close();
    this.ctx.nodePoolCounts.close();
    this.unsubscribe();
  }

  private beginPass(): void {
    this.ctx.clock.pass();
    this.work.passes++;
    this.ctx.memory.pdbAllowed.clear();
    this.ctx.memory.pdbsByNamespace.clear();
    this.ctx.memory.pdbsByLabels.clear();
  }

  private step([name, run]: Step): void {
    this.ctx.budget.reset();
    run(this.ctx);
    const writes = this.ctx.budget.spent();
    this.work.steps++;
    if (writes > this.work.maxWritesPerStep) {
      this.work.maxWritesPerStep = writes;
      this.work.busiestStep = name;
    }
  }
}
