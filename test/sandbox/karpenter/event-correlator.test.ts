// client-go's EventCorrelator (tools/record/events_cache.go, defaults of NewEventCorrelatorWithOptions), step by step:
// counting an event like one recorded, aggregating a 10th message in 10 minutes, the spam filter's 25 and then one
// per 5 minutes per source and object, and its LRU of 4,096.
import { describe, expect, it } from 'vitest';
import { EventCorrelator, type EventDraft } from '../../../src/sandbox/karpenter/event-correlator.js';

const node = (name: string) => ({ kind: 'Node', name, uid: `uid-${name}`, apiVersion: 'v1' });
const draft = (o: Partial<EventDraft> = {}): EventDraft => ({
  source: 'karpenter',
  object: node('ip-10-0-1-1'),
  type: 'Normal',
  reason: 'DisruptionBlocked',
  message: 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
  ...o,
});
const MIN = 60_000;

/** Feeds the drafts at the given minutes; each fresh name is `e<n>`, its timestamp `t<n>`. */
function run(c: EventCorrelator, steps: Array<[minute: number, event: EventDraft]>) {
  return steps.map(([minute, e], i) => c.correlate(e, minute * MIN, { name: `e${i}`, timestamp: `t${i}` }));
}

describe('EventCorrelator', () => {
  it.each<[string, Array<[number, EventDraft]>, Array<ReturnType<EventCorrelator['correlate']>>]>([
    [
      'the same event again counts the first one up, whenever it comes',
      [
        [0, draft()],
        [2, draft()],
        [300, draft()],
      ],
      [
        { name: 'e0', count: 1, firstTimestamp: 't0', message: draft().message },
        { name: 'e0', count: 2, firstTimestamp: 't0', message: draft().message },
        { name: 'e0', count: 3, firstTimestamp: 't0', message: draft().message },
      ],
    ],
    [
      'another message, reason, type, object or source is another Event',
      [
        [0, draft()],
        [0, draft({ message: 'Node is deleting or marked for deletion' })],
        [0, draft({ reason: 'Unconsolidatable' })],
        [0, draft({ type: 'Warning' })],
        [0, draft({ object: node('ip-10-0-1-2') })],
        [0, draft({ source: 'kubelet' })],
      ],
      [0, 1, 2, 3, 4, 5].map((i) => ({ name: `e${i}`, count: 1, firstTimestamp: `t${i}`, message: expect.any(String) as string })),
    ],
  ])('%s', (_what, steps, expected) => {
    expect(run(new EventCorrelator(), steps)).toEqual(expected);
  });

  it('combines the 10th different message about an object and reason within 10 minutes, then counts the combined one up', () => {
    const c = new EventCorrelator();
    const out = run(
      c,
      Array.from({ length: 12 }, (_, i): [number, EventDraft] => [i * 0.5, draft({ message: `Not all pods would schedule, m${i}` })]),
    );
    expect(out.slice(0, 9).map((r) => r?.count)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(out.slice(9)).toEqual([
      { name: 'e9', count: 1, firstTimestamp: 't9', message: '(combined from similar events): Not all pods would schedule, m9' },
      { name: 'e9', count: 2, firstTimestamp: 't9', message: '(combined from similar events): Not all pods would schedule, m10' },
      { name: 'e9', count: 3, firstTimestamp: 't9', message: '(combined from similar events): Not all pods would schedule, m11' },
    ]);
  });

  it('starts the messages over after 10 minutes without one', () => {
    const c = new EventCorrelator();
    const early = Array.from({ length: 9 }, (_, i): [number, EventDraft] => [i, draft({ message: `m${i}` })]);
    const out = run(c, [...early, [18.5, draft({ message: 'm9' })]]);
    expect(out.at(-1)).toEqual({ name: 'e9', count: 1, firstTimestamp: 't9', message: 'm9' });
  });

  it('lets 25 events about an object through, then one per 5 minutes, and counts the dropped ones all the same', () => {
    const c = new EventCorrelator();
    const burst = run(c, Array.from({ length: 27 }, (): [number, EventDraft] => [0, draft()]));
    expect(burst.slice(0, 25).map((r) => r?.count)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(burst.slice(25)).toEqual([undefined, undefined]);
    // The other reasons about the same object share the bucket; another object has its own.
    expect(c.correlate(draft({ reason: 'DisruptionTerminating' }), 4 * MIN, { name: 'x', timestamp: 'x' })).toBeUndefined();
    expect(c.correlate(draft({ object: node('other') }), 4 * MIN, { name: 'y', timestamp: 'y' })?.count).toBe(1);
    // One token back after 300 s: the count says how many were observed, 28 with the two dropped and this one.
    expect(c.correlate(draft(), 5 * MIN, { name: 'z', timestamp: 'z' })).toEqual({
      name: 'e0',
      count: 28,
      firstTimestamp: 't0',
      message: draft().message,
    });
    expect(c.correlate(draft(), 5 * MIN + 1000, { name: 'z', timestamp: 'z' })).toBeUndefined();
  });

  it('forgets the least recently seen of more than 4,096 events: the next one like it is a new Event', () => {
    const c = new EventCorrelator();
    c.correlate(draft(), 0, { name: 'first', timestamp: 't' });
    for (let i = 0; i < 4096; i++) c.correlate(draft({ object: node(`n${i}`) }), 0, { name: `n${i}`, timestamp: 't' });
    expect(c.correlate(draft(), 0, { name: 'again', timestamp: 't2' })).toMatchObject({ name: 'again', count: 1 });
  });
});
