// Kubernetes Events as Karpenter's recorder writes them (kubernetes-sigs/karpenter pkg/events/recorder.go): an event
// is deduplicated on its DedupeValues for a timeout (2 minutes by default, 1 minute for the NodePool budget event),
// so a blocked node is reported once per window, not once per 10-second disruption pass. What passes goes through
// client-go's EventCorrelator (event-correlator.ts), one per reporting component as each runs its own broadcaster: an
// event like one already written counts that one up (a PATCH of `count` and `lastTimestamp`), a 10th different
// message about an object and reason in 10 minutes is combined, and a component's events about one object beyond 25
// come one per 5 minutes. So a node held for hours is one Event counted up, as `kubectl get events` shows it on a real
// cluster, not one Event per dedupe window.
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import type { SimClock } from './clock.js';
import { EventCorrelator } from './event-correlator.js';
import { rfc3339 } from './objects.js';

export interface KarpenterEvent {
  object: KubeObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** What makes two events the same (Karpenter's DedupeValues); default: the object's uid and the reason. */
  dedupe?: string[];
  dedupeTimeoutMs?: number;
  /** The component that reports it, when the simulator plays another controller (the kubelet, node-controller). */
  source?: string;
}

const DEFAULT_DEDUPE_MS = 2 * 60_000;
/** `published` keeps the newest this many: a 50,000-pod rollout publishes an Evicted event per pod. */
const PUBLISHED_KEPT = 10_000;

export class EventRecorder {
  private readonly lastSent = new Map<string, number>();
  private readonly correlators = new Map<string, EventCorrelator>();
  private counter = 0;
  private sweepAt = PUBLISHED_KEPT;
  /**
   * The events published, in order (the newest PUBLISHED_KEPT), for tests and the simulator's own log: what Karpenter's
   * recorder handed to client-go, before its correlator counted them up, combined or dropped them.
   */
  readonly published: Array<{ at: Date; reason: string; kind: string; name: string; message: string }> = [];

  constructor(
    private readonly store: KubeStore,
    private readonly clock: SimClock,
  ) {}

  publish(event: KarpenterEvent): void {
    // Deduplication windows pass in simulated time; the event's timestamps are wall-clock, like every object's.
    const now = this.clock.now();
    const { metadata } = event.object;
    const key = [event.reason, ...(event.dedupe ?? [metadata.uid ?? metadata.name ?? ''])].join('/');
    const last = this.lastSent.get(key);
    if (last !== undefined && now.getTime() - last < (event.dedupeTimeoutMs ?? DEFAULT_DEDUPE_MS)) return;
    this.lastSent.set(key, now.getTime());
    if (this.lastSent.size > this.sweepAt) this.forgetExpired(now.getTime());
    const wall = this.clock.wall();
    this.published.push({
      at: wall,
      reason: event.reason,
      kind: event.object.kind,
      name: metadata.name ?? '',
      message: event.message,
    });
    if (this.published.length > 2 * PUBLISHED_KEPT) this.published.splice(0, this.published.length - PUBLISHED_KEPT);
    const time = rfc3339(wall);
    this.counter += 1;
    // Events about cluster-scoped objects go to the default namespace, as client-go's recorder puts them.
    const namespace = metadata.namespace ?? 'default';
    const source = event.source ?? 'karpenter';
    const draft = {
      source,
      object: {
        kind: event.object.kind ?? '',
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        name: metadata.name ?? '',
        uid: metadata.uid ?? '',
        apiVersion: event.object.apiVersion ?? '',
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
    };
    let correlator = this.correlators.get(source);
    if (correlator === undefined) this.correlators.set(source, (correlator = new EventCorrelator()));
    const fresh = { name: `${metadata.name ?? 'object'}.${(wall.getTime() * 1000 + this.counter).toString(16)}`, timestamp: time };
    // Aggregation windows and the spam filter's refill pass in simulated time, as the dedupe does.
    const correlated = correlator.correlate(draft, now.getTime(), fresh);
    if (correlated === undefined) return;
    const counted = correlated.count > 1 ? this.store.get('events', correlated.name, namespace) : undefined;
    if (counted !== undefined) {
      this.store.update('events', { ...counted, message: correlated.message, lastTimestamp: time, count: correlated.count });
      return;
    }
    // A new Event, or one counted up that is gone (expired, deleted): created again under its name, as recordEvent does.
    this.store.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: correlated.name, namespace },
      involvedObject: {
        apiVersion: event.object.apiVersion,
        kind: event.object.kind,
        name: metadata.name,
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        uid: metadata.uid,
        resourceVersion: metadata.resourceVersion,
      },
      reason: event.reason,
      message: correlated.message,
      type: event.type,
      source: { component: source },
      reportingComponent: source,
      reportingInstance: '',
      firstTimestamp: correlated.firstTimestamp,
      lastTimestamp: time,
      count: correlated.count,
    });
  }

  /** Dedupe entries whose window has passed say nothing any more (Karpenter's cache expires them too). */
  private forgetExpired(now: number): void {
    for (const [key, at] of this.lastSent) if (now - at >= DEFAULT_DEDUPE_MS) this.lastSent.delete(key);
    this.sweepAt = Math.max(PUBLISHED_KEPT, 2 * this.lastSent.size);
  }
}
