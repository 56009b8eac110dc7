// Kubernetes Events as Karpenter's recorder writes them (kubernetes-sigs/karpenter pkg/events/recorder.go): an event
// is deduplicated on its DedupeValues for a timeout (2 minutes by default, 1 minute for the NodePool budget event),
// so a blocked node is reported once per window, not once per 10-second disruption pass.
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import type { SimClock } from './clock.js';
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
  private counter = 0;
  private sweepAt = PUBLISHED_KEPT;
  /** The events published, in order (the newest PUBLISHED_KEPT), for tests and the simulator's own log. */
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
    this.store.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${metadata.name ?? 'object'}.${(wall.getTime() * 1000 + this.counter).toString(16)}`,
        namespace,
      },
      involvedObject: {
        apiVersion: event.object.apiVersion,
        kind: event.object.kind,
        name: metadata.name,
        ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
        uid: metadata.uid,
        resourceVersion: metadata.resourceVersion,
      },
      reason: event.reason,
      message: event.message,
      type: event.type,
      source: { component: event.source ?? 'karpenter' },
      reportingComponent: event.source ?? 'karpenter',
      reportingInstance: '',
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    });
  }

  /** Dedupe entries whose window has passed say nothing any more (Karpenter's cache expires them too). */
  private forgetExpired(now: number): void {
    for (const [key, at] of this.lastSent) if (now - at >= DEFAULT_DEDUPE_MS) this.lastSent.delete(key);
    this.sweepAt = Math.max(PUBLISHED_KEPT, 2 * this.lastSent.size);
  }
}
