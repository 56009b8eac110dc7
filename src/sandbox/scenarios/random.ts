// The sandbox's seeded randomness: a scenario replays identically for the same seed, so a failing run can be
// reproduced and tests can name the objects they expect. mulberry32 is small, fast and good enough for names
// and jitter; nothing here is for security.

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` characters drawn from `alphabet`. */
  chars(length: number, alphabet: string): string;
}

/**
 * A generator for `seed`; `stream` derives an independent sequence, so adding a workload to a scenario does not
 * rename its nodes.
 */
export function seededRandom(seed: number, stream = ''): SeededRandom {
  let state = (hashString(stream) ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('seededRandom.pick: nothing to pick from');
      return items[int(0, items.length - 1)] as T;
    },
    chars(length: number, alphabet: string): string {
      let out = '';
      for (let i = 0; i < length; i++) out += alphabet[int(0, alphabet.length - 1)];
      return out;
    },
  };
}

// FNV-1a: turns a stream label into 32 bits to mix into the seed.
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
