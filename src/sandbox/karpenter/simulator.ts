// The simulated Karpenter: its controllers run in Karpenter's order on every pass, reading and writing only through
// the sandbox API store (so every change is validated, versioned and seen by watches, as a real controller's would be).
// Passes run every `tickMs` of real time against a clock that runs `speed` times faster; tests drive `pass()` by hand
// with a ManualClock instead.
import type { AmiCatalog } from '../aws/types.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import type { SimClock } from './clock.js';
import type { SeededRandom } from '../scenarios/random.js';
import { DEFAULT_TIMING, type SimContext, type SimFaults, type SimTiming, type TakenNames } from './context.js';
import { reconcileDisruption } from './disruption-controller.js';
import { reconcileDrift } from './drift-controller.js';
import { EventRecorder } from './events.js';
import { reconcileLifecycle } from './lifecycle-controller.js';
import { reconcileNodeClasses } from './nodeclass-controller.js';
import { reconcilePods } from './pods.js';
import { reconcileTermination } from './termination-controller.js';

export interface SimulatorOptions {
  store: KubeStore;
  catalog: AmiCatalog;
  clock: SimClock;
  rng: SeededRandom;
  /** Names the cluster already uses (the scenario's); default: none. */
  taken?: TakenNames;
  controlPlaneVersion: string;
  karpenterApi?: 'v1' | 'v1beta1';
  timing?: Partial<SimTiming>;
  faults?: SimFaults;
  /** Karpenter's log lines (`disrupting node(s)`, `launched nodeclaim`, ...), with the simulated time. */
  log?: (line: string) => void;
}

export class KarpenterSimulator {
  readonly ctx: SimContext;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** The last error a pass threw (a pass that fails is retried on the next tick, as a controller requeues). */
  lastError: Error | undefined;

  constructor(options: SimulatorOptions) {
    const timing = { ...DEFAULT_TIMING, ...options.timing };
    const faults = options.faults ?? {};
    this.ctx = {
      store: options.store,
      clock: options.clock,
      events: new EventRecorder(options.store, options.clock),
      rng: options.rng,
      taken: options.taken ?? { names: new Set(), dnsNames: new Set(), instanceIds: new Set() },
      timing,
      faults,
      catalog: options.catalog,
      controlPlaneVersion: options.controlPlaneVersion,
      karpenterApi: options.karpenterApi ?? 'v1',
      memory: {
        driftSeenAt: new Map(),
        commands: new Map(),
        retryAfter: new Map(),
        lifecycle: new Map(),
        launchFailuresLeft: faults.launchFailures?.count ?? 0,
        terminating: new Map(),
        starting: new Map(),
        pending: new Set(),
        pdbAllowed: new Map(),
        deletingSince: new Map(),
        nodeClassRetryAt: new Map(),
        lastDisruptionPass: Number.NEGATIVE_INFINITY,
        hostnamePlaceholders: 0,
      },
      log: (line) => options.log?.(`${options.clock.wall().toISOString()} ${line}`),
    };
  }

  /** One reconcile of every controller, in the order Karpenter's would settle. */
  pass(): void {
    this.ctx.memory.pdbAllowed.clear();
    reconcileNodeClasses(this.ctx);
    reconcileLifecycle(this.ctx);
    reconcileDrift(this.ctx);
    reconcileDisruption(this.ctx);
    reconcileTermination(this.ctx);
    reconcilePods(this.ctx);
  }

  start(tickMs = 50): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      try {
        this.pass();
        this.lastError = undefined;
      } catch (err) {
        this.lastError = err instanceof Error ? err : new Error(String(err));
        this.ctx.log(`reconciler error: ${this.lastError.message}`);
      } finally {
        this.running = false;
      }
    }, tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
