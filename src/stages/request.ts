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

/** The flags that ask for `request` again, for the commands a message tells the user to run. */
export function stagedFlags(request: StagedRequest): string[] {
  const soak = request.soakMs % 60_000 === 0 ? `${request.soakMs / 60_000}m` : `${request.soakMs / 1000}s`;
  return [
    ...request.canary.map((c) => `--canary ${c}`),
    `--waves ${request.waves.map((w) => w.text).join(',')}`,
    ...(request.soakMs > 0 ? [`--soak ${soak}`] : []),
    ...(request.holdWith !== 'auto' ? [`--hold-with ${request.holdWith}`] : []),
  ];
}
