// client-go's EventCorrelator (k8s.io/client-go tools/record/events_cache.go), which every event Karpenter's recorder
// hands to client-go goes through before it reaches the API server (controller-runtime's recorder is client-go's
// broadcaster with the default correlator options):
// - aggregation: a 10th different message for the same object and reason within 10 minutes becomes one event
//   `(combined from similar events): <message>`, counted up from then on;
// - counting: an event exactly like one already recorded (same source, object, type, reason and message) is not a new
//   Event but a PATCH of that one: `count` + 1, `lastTimestamp` now;
// - the spam filter: a source may record 25 events about one object, then one every 5 minutes (a token bucket per
//   source and object), whatever their reasons.
// Each cache is an LRU of 4,096 entries. Pure: time is an argument (milliseconds of the clock the recorder runs on).

/** The event as client-go's recorder makes it, before correlation. */
export interface EventDraft {
  source: string;
  object: { kind: string; namespace?: string; name: string; uid: string; apiVersion: string };
  type: string;
  reason: string;
  message: string;
}

/**
 * What to write: the Event of this name with this count (1: create it; more: PATCH its count, lastTimestamp and
 * message, or create it when it is gone), or nothing (the spam filter took it).
 */
export type Correlated = { name: string; count: number; message: string; firstTimestamp: string } | undefined;

const LRU_ENTRIES = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
/** One token per 300 s (defaultSpamQPS 1/300). */
const SPAM_REFILL_MS = 300_000;

/** groupcache's lru.Cache: reading an entry makes it the newest; past its size, the oldest goes. */
class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  add(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/**
 * golang.org/x/time/rate as flowcontrol's token bucket uses it: full at first, refilled at the QPS, at most the
 * burst. Counted in milliseconds of refill (a token is SPAM_REFILL_MS), so no fraction of a token is lost on the way.
 */
interface Bucket {
  ms: number;
  at: number;
}

interface Observed {
  count: number;
  name: string;
  firstTimestamp: string;
}

export class EventCorrelator {
  private readonly spam = new Lru<Bucket>(LRU_ENTRIES);
  private readonly aggregates = new Lru<{ messages: Set<string>; last: number }>(LRU_ENTRIES);
  private readonly observed = new Lru<Observed>(LRU_ENTRIES);

  /**
   * EventCorrelate at `now` (ms): aggregate, then count (eventObserve), then the spam filter. `fresh` is the name and
   * timestamp client-go's recorder gave the event (`<object>.<unix nanoseconds in hex>`), used when it is new.
   */
  correlate(event: EventDraft, now: number, fresh: { name: string; timestamp: string }): Correlated {
    const o = event.object;
    const objectKey = [event.source, '', o.kind, o.namespace ?? '', o.name, o.uid, o.apiVersion].join('\u0000');
    // EventAggregatorByReasonFunc: the reporting controller and instance are the source's component and host.
    const aggregateKey = [objectKey, event.type, event.reason, event.source, ''].join('\u0000');
    let aggregate = this.aggregates.get(aggregateKey);
    if (aggregate === undefined || now - aggregate.last > AGGREGATE_INTERVAL_MS) aggregate = { messages: new Set(), last: now };
    aggregate.messages.add(event.message);
    aggregate.last = now;
    this.aggregates.add(aggregateKey, aggregate);
    let message = event.message;
    let key = [objectKey, '', event.type, event.reason, event.message].join('\u0000'); // getEventKey (FieldPath '')
    if (aggregate.messages.size >= AGGREGATE_MAX_EVENTS) {
      aggregate.messages.delete(aggregate.messages.values().next().value as string); // PopAny: stay at the max
      message = `(combined from similar events): ${event.message}`;
      key = aggregateKey;
    }
    // eventObserve records the observation before the spam filter looks: a count the filter drops is still taken.
    const last = this.observed.get(key);
    const observed: Observed =
      last === undefined
        ? { count: 1, name: fresh.name, firstTimestamp: fresh.timestamp }
        : { count: last.count + 1, name: last.name, firstTimestamp: last.firstTimestamp };
    this.observed.add(key, observed);
    return this.allowed(objectKey, now) ? { ...observed, message } : undefined;
  }

  /** EventSourceObjectSpamFilter: one token per event, `SPAM_BURST` at most, refilled one per 300 s. */
  private allowed(objectKey: string, now: number): boolean {
    const bucket = this.spam.get(objectKey) ?? { ms: SPAM_BURST * SPAM_REFILL_MS, at: now };
    bucket.ms = Math.min(SPAM_BURST * SPAM_REFILL_MS, bucket.ms + Math.max(0, now - bucket.at));
    bucket.at = now;
    const ok = bucket.ms >= SPAM_REFILL_MS;
    if (ok) bucket.ms -= SPAM_REFILL_MS;
    this.spam.add(objectKey, bucket);
    return ok;
  }
}
