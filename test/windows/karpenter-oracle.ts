// Karpenter's reading of a NodePool's budgets, minute by minute, written from its source and not from src/windows/:
// - kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go `Budget.IsActive`: active iff
//   `schedule.Next(now - duration)` is not after now;
// - robfig/cron v3.0.1 spec.go `Next`: the first matching second strictly after its argument (seconds are 0 in a
//   standard spec, so: the first matching minute strictly after), and `dayMatches`: day of month AND day of week when
//   either field has the star bit, else OR.
// So a budget is active at minute t iff some matching minute lies in (t - duration, t]. Prefix sums make that one
// pass per budget over the horizon. Parsing is src/karpenter/cron.ts (checked against upstream's tests there).
// Not modelled: robfig gives up after five years without a hit (no budget here goes that long).
import type { Budget } from '../../src/karpenter/budgets.js';
import { cronFields, type CronFields } from '../../src/karpenter/cron.js';

const MINUTE_MS = 60_000;

function matches(f: CronFields, t: Date): boolean {
  if (!f.month.values.includes(t.getUTCMonth() + 1)) return false;
  if (!f.hour.values.includes(t.getUTCHours()) || !f.minute.values.includes(t.getUTCMinutes())) return false;
  const domMatch = f.dom.values.includes(t.getUTCDate());
  const dowMatch = f.dow.values.includes(t.getUTCDay());
  return f.dom.star || f.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
}

const DURATION = /^(?:([0-9]+)h)?(?:([0-9]+)m)?$/;
function durationMinutes(text: string): number {
  const m = DURATION.exec(text);
  if (m == null || text === '') throw new Error(`not a Karpenter budget duration: ${text}`);
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
}

/** 1 at each minute of [start, start + minutes) where `budget` is active. */
export function activeMinutes(budget: Budget, start: Date, minutes: number): Uint8Array {
  const active = new Uint8Array(minutes);
  if (budget.schedule === undefined) return active.fill(1);
  const fields = cronFields(budget.schedule);
  if ('error' in fields) throw new Error(fields.error);
  const d = durationMinutes(budget.duration!);
  // hits[i] counts matching minutes in [start - d + 1, start - d + 1 + i).
  const first = start.getTime() - (d - 1) * MINUTE_MS;
  const prefix = new Int32Array(minutes + d);
  for (let i = 0; i < minutes + d - 1; i++) {
    prefix[i + 1] = prefix[i]! + (matches(fields, new Date(first + i * MINUTE_MS)) ? 1 : 0);
  }
  for (let t = 0; t < minutes; t++) active[t] = prefix[t + d]! - prefix[t]! > 0 ? 1 : 0;
  return active;
}

/**
 * `GetAllowedDisruptionsByReason` for Drifted with no node counted: the minimum of the active budgets that apply
 * (reasons absent or listing Drifted), Infinity when none is active. Absolute `nodes` only.
 */
export function driftLimits(budgets: readonly Budget[], start: Date, minutes: number): number[] {
  const limits = new Array<number>(minutes).fill(Infinity);
  for (const b of budgets) {
    if (b.reasons !== undefined && !b.reasons.includes('Drifted')) continue;
    const nodes = Number(b.nodes);
    if (!Number.isInteger(nodes)) throw new Error(`the oracle reads absolute nodes only: ${b.nodes}`);
    const active = activeMinutes(b, start, minutes);
    for (let t = 0; t < minutes; t++) if (active[t] === 1 && nodes < limits[t]!) limits[t] = nodes;
  }
  return limits;
}
