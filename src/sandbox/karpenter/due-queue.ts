// Work that falls due at a simulated instant (a crash-looping container's next restart), kept in a binary min-heap,
// so a pass costs what is due now rather than a scan of everything waiting: on `large` a scan of every crash-looping
// pod per pass would hold the event loop as a fleet scan does.

export class DueQueue<T> {
  private readonly heap: Array<{ at: number; item: T }> = [];

  get size(): number {
    return this.heap.length;
  }

  push(at: number, item: T): void {
    const heap = this.heap;
    heap.push({ at, item });
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= heap[i]!.at) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  /** The earliest item due at or before `now`, removed from the queue; undefined when nothing is due yet. */
  popDue(now: number): T | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (top === undefined || top.at > now) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < heap.length && heap[l]!.at < heap[least]!.at) least = l;
        if (r < heap.length && heap[r]!.at < heap[least]!.at) least = r;
        if (least === i) break;
        [heap[least], heap[i]] = [heap[i]!, heap[least]!];
        i = least;
      }
    }
    return top.item;
  }
}
