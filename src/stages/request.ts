// What `--canary`, `--waves`, `--soak` and `--hold-with` ask for (stage-options.ts parses them). Types only, so the
// options and the pure planning of stages can share them without importing each other.
import type { WaveStep } from './waves.js';

export type HoldWith = 'auto' | 'budget' | 'node';

export interface StagedRequest {
  /** --canary: the NodePools of the first stage, in the order given. */
  canary: string[];
  /** --waves, cumulative; `100%` when not given (each stage in one wave). */
  waves: WaveStep[];
  /** --soak, after each wave and each stage; 0: the next opens as soon as the last replacement is Ready. */
  soakMs: number;
  holdWith: HoldWith;
}
