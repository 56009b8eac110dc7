// Windows nobody chose: seeded random crons, durations and exclusions, each checked every minute of two weeks
// against the oracle, as budgets.test.ts checks the chosen ones. Every budget written must also be one the NodePool
// CRD admits, or Karpenter would fail it closed (and drift would stop inside the windows too).
import { describe, expect, it } from 'vitest';
import type { Budget } from '../../src/karpenter/budgets.js';
import { windowBudgets } from '../../src/windows/budgets.js';
import { isWindowOpen, windowCalendar } from '../../src/windows/calendar.js';
import { exclusion, expectedOpen, window } from './helpers.js';
import { driftLimits } from './karpenter-oracle.js';

// kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go, the kubebuilder patterns of Budget.Schedule and Duration.
const CRD_SCHEDULE = /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$/;
const CRD_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;

// mulberry32: a fixed seed, so a failure names a case that fails again.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function field(r: () => number, max: number, names?: string[]): string {
  const n = (v: number) => (names !== undefined && r() < 0.5 ? names[v]! : String(v));
  const pick = r();
  if (pick < 0.15) return '*';
  if (pick < 0.3) return `*/${1 + Math.floor(r() * 6)}`;
  if (pick < 0.5) {
    const a = Math.floor(r() * max);
    return `${n(a)}-${n(a + Math.floor(r() * (max - a + 1)))}`;
  }
  const values = new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => Math.floor(r() * (max + 1))));
  return [...values].map(n).join(',');
}

function randomCase(seed: number) {
  const r = random(seed);
  const days = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
  const windows = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    const minutes = r() < 0.75 ? 1 + Math.floor(r() * 240) : 60 * (1 + Math.floor(r() * 48));
    const minute = r() < 0.6 ? String(Math.floor(r() * 60)) : field(r, 59);
    return `${minute} ${field(r, 23)} * * ${field(r, 6, days)}/${minutes}m`;
  });
  const start = new Date(Date.UTC(2026, Math.floor(r() * 12), 1 + Math.floor(r() * 28), Math.floor(r() * 24)));
  const exclusions = Array.from({ length: Math.floor(r() * 3) }, () => {
    const from = new Date(start.getTime() + Math.floor(r() * 14 * 1440) * 60_000 - 2 * 86_400_000);
    const to = new Date(from.getTime() + (1 + Math.floor(r() * 4 * 1440)) * 60_000);
    return `${from.toISOString().slice(0, 16)}Z/${to.toISOString().slice(0, 16)}Z`;
  });
  return { windows, exclusions, start };
}

describe('random windows: every minute of two weeks', () => {
  it.each(Array.from({ length: 60 }, (_, i) => [1000 + i]))('seed %d', (seed) => {
    const c = randomCase(seed);
    const windows = c.windows.map(window);
    const exclusions = c.exclusions.map(exclusion);
    const kept: Budget[] = [{ nodes: '4', reasons: ['Drifted'] }];
    const result = windowBudgets(windows, exclusions, { now: c.start, kept: kept.length });
    if ('error' in result) {
      // Only a cron that never fires, or more than 50 budgets, may be refused.
      expect(result.error).toMatch(/never open|Karpenter allows at most 50/);
      return;
    }
    for (const b of result.budgets) {
      expect(b.schedule).toMatch(CRD_SCHEDULE);
      expect(b.duration).toMatch(CRD_DURATION);
    }
    const minutes = 2 * 7 * 1440;
    const open = expectedOpen(windows, exclusions, c.start, minutes);
    const limits = driftLimits([...kept, ...result.budgets], c.start, minutes);
    const cal = windowCalendar(windows, exclusions);
    const wrong: string[] = [];
    for (let t = 0; t < minutes && wrong.length < 5; t++) {
      const at = new Date(c.start.getTime() + t * 60_000);
      if (limits[t] !== (open[t] === 1 ? 4 : 0)) wrong.push(`${at.toISOString()}: Karpenter allows ${limits[t]}`);
      if (isWindowOpen(cal, at) !== (open[t] === 1)) wrong.push(`${at.toISOString()}: calendar`);
    }
    expect({ case: c, wrong }).toEqual({ case: c, wrong: [] });
  });
});
