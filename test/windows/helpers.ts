// Windows and exclusions from their flags, for tables that start from what a user types.
import type { Budget } from '../../src/karpenter/budgets.js';
import { parseExclusion, parseWindow, type Exclusion, type UpgradeWindow } from '../../src/windows/flags.js';
import { activeMinutes } from './karpenter-oracle.js';

const MINUTE_MS = 60_000;

export function window(text: string): UpgradeWindow {
  const w = parseWindow(text);
  if ('error' in w) throw new Error(w.error);
  return w;
}

export function exclusion(text: string): Exclusion {
  const e = parseExclusion(text);
  if ('error' in e) throw new Error(e.error);
  return e;
}

/** Open as the issue defines it: some window active as a Karpenter budget would be, and no exclusion. */
export function expectedOpen(windows: UpgradeWindow[], exclusions: Exclusion[], start: Date, minutes: number): Uint8Array {
  const open = new Uint8Array(minutes);
  for (const w of windows) {
    const asBudget: Budget = { nodes: '0', schedule: w.schedule, duration: `${w.durationMs / MINUTE_MS}m` };
    activeMinutes(asBudget, start, minutes).forEach((a, t) => (open[t] ||= a));
  }
  for (const e of exclusions) {
    for (let t = 0; t < minutes; t++) {
      const at = start.getTime() + t * MINUTE_MS;
      if (e.from.getTime() <= at && at < e.to.getTime()) open[t] = 0;
    }
  }
  return open;
}

