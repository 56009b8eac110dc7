// How a diagnosis shows what it found: Karpenter's events quoted as kubectl describe shows them, and long lists cut
// short. Shared by the checks in stalls.ts and pod-stalls.ts.
import type { EventView } from '../karpenter/views.js';
import { eventTime } from './snapshot.js';
import { humanDuration } from '../text/words.js';
import { inOrder } from '../text/order.js';

const LISTED = 5;
const QUOTED = 3;

/** Karpenter's events as kubectl describe shows them: the same message on the same object counted together, newest first. */
export function quotes(events: EventView[], now: Date): string[] {
  const groups = new Map<string, { e: EventView; count: number; first: string; last: string }>();
  for (const e of events) {
    const key = [e.reason, e.involvedKind, e.involvedName, e.message].join('\u0000');
    const g = groups.get(key);
    const last = eventTime(e);
    const first = e.firstTimestamp ?? last;
    if (g === undefined) groups.set(key, { e, count: e.count, first, last });
    else {
      g.count += e.count;
      if (first < g.first) g.first = first;
      if (last > g.last) g.last = last;
    }
  }
  return [...groups.values()]
    .sort((a, b) => inOrder(b.last, a.last))
    .slice(0, QUOTED)
    .map(({ e, count, first, last }) => {
      const ago = (t: string) => humanDuration(now.getTime() - Date.parse(t));
      const when =
        last === ''
          ? ''
          : count > 1 && first !== ''
            ? ` (${ago(last)} ago, x${count} over ${ago(first)})`
            : ` (${ago(last)} ago)`;
      return `event ${e.reason} on ${e.involvedKind ?? '?'}/${e.involvedName ?? '?'}${when}: "${e.message}"`;
    });
}

export function listed(lines: string[], noun: string): string[] {
  return lines.length <= LISTED ? lines : [...lines.slice(0, LISTED), `… and ${lines.length - LISTED} more ${noun}`];
}
