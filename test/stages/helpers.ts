// What the staged-rollout tables share: waves from their flag text, and minutes on a fixed clock.
import { parseWaves, type WaveStep } from '../../src/stages/waves.js';

export const waves = (text: string): WaveStep[] => {
  const parsed = parseWaves(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.steps;
};
export const MIN = 60_000;
export const t0 = new Date(Date.UTC(2026, 10, 25, 12));
export const at = (minutes: number): Date => new Date(t0.getTime() + minutes * MIN);
