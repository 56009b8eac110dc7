// At most N requests of a batch on the wire at once. Every request in flight on karp-drift's keep-alive agent holds a
// connection of its own (HTTP/1.1: client-go multiplexes over one HTTP/2 connection instead), and each new
// connection is a TLS handshake, client and API server alike: `status` on a small cluster asks for 16 lists at once,
// and 16 handshakes cost it more than the lists (bench/: about 25 ms against 10 ms for the same lists over a few
// connections). A few connections still carry the lists of a 5,000-node cluster side by side, where the pods' 100
// pages, one after another, take longest anyway.

export interface InFlight {
  /** Runs `request` once fewer than the limit of the others are running. */
  run<T>(request: () => Promise<T>): Promise<T>;
}

export function inFlight(limit: number): InFlight {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run(request) {
      // A finished request hands its place to the first one waiting, which thus never competes with a newcomer.
      if (running < limit) running += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await request();
      } finally {
        const first = waiting.shift();
        if (first) first();
        else running -= 1;
      }
    },
  };
}
