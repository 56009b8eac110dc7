// planWindows: what `--window`/`--exclude` may write on the NodePools of a staged rollout, checked before anything is.
import { describe, expect, it } from 'vitest';
import { planWindows, windowsRefusedOn } from '../../src/stages/window-plan.js';
import { parseExclusion, parseWindow, type Exclusion, type UpgradeWindow } from '../../src/windows/flags.js';
import type { HoldChoice } from '../../src/stages/hold-mechanism.js';
import { encodeHoldRecord, HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import type { Budget } from '../../src/karpenter/budgets.js';

const window = (t: string) => parseWindow(t) as UpgradeWindow;
const exclusion = (t: string) => parseExclusion(t) as Exclusion;
const byBudget: HoldChoice = { nodePool: 'x', mechanism: 'budget', why: 'no GitOps or IaC tool manages its budgets' };
const pool = (name: string, budgets?: Budget[], annotations?: Record<string, string>) => ({
  pool: { name, ...(budgets ? { budgets } : {}), ...(annotations ? { annotations } : {}) },
  hold: { ...byBudget, nodePool: name },
});
// Saturday 2026-11-28 09:00 UTC.
const now = new Date('2026-11-28T09:00:00Z');
const request = { windows: [window('0 2 * * mon-thu/3h')], exclusions: [exclusion('2026-12-24/2026-12-26')] };

describe('planWindows', () => {
  it('writes the closed time of the week and the exclusion, and counts each NodePool up to 50', () => {
    const r = planWindows(request, [pool('general', [{ nodes: '10%' }, { nodes: '5' }]), pool('canary')], 'v1', now, 'Europe/Berlin');
    if (!('plan' in r)) throw new Error(JSON.stringify(r));
    expect(r.plan.budgets).toEqual([
      { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 1-3', duration: '21h' },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 4', duration: '93h' },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 0 24 12 *', duration: '72h' },
    ]);
    // Own budgets + 3 windows' + the switch and the hold; an absent field is the CRD default's one.
    expect(r.plan.nodePools).toEqual([
      { name: 'general', own: 2, total: 7 },
      { name: 'canary', own: 1, total: 6 },
    ]);
    expect(r.plan.state).toEqual({ open: false, opensAt: new Date('2026-11-30T02:00:00Z') });
    expect(r.plan.next.map((w) => [w.opensAt.toISOString(), w.closesAt?.toISOString()])).toEqual([
      ['2026-11-30T02:00:00.000Z', '2026-11-30T05:00:00.000Z'],
      ['2026-12-01T02:00:00.000Z', '2026-12-01T05:00:00.000Z'],
      ['2026-12-02T02:00:00.000Z', '2026-12-02T05:00:00.000Z'],
    ]);
    expect(r.plan.timeZone).toBe('Europe/Berlin');
  });

  it("counts a held NodePool's own budgets, not karp-drift's hold on it", () => {
    const own: Budget[] = [{ nodes: '10%' }];
    const annotations = { [HOLD_ANNOTATION]: encodeHoldRecord({ runId: 'r', since: 's', budgets: own }) };
    const r = planWindows(request, [pool('general', [...own, { nodes: '0', reasons: ['Drifted'] }], annotations)], 'v1', now);
    expect('plan' in r && r.plan.nodePools).toEqual([{ name: 'general', own: 1, total: 6 }]);
  });

  it('refuses more than 50 on the fullest NodePool, before anything is written', () => {
    const full = Array.from({ length: 46 }, () => ({ nodes: '10%' }));
    const r = planWindows(request, [pool('general', full), pool('canary')], 'v1', now);
    expect(r).toEqual({
      usage:
        'the windows and exclusions need 3 budgets and the NodePool keeps 48: Karpenter allows at most 50 (spec.disruption.budgets)',
      next: expect.stringContaining('use fewer or wider windows') as string,
    });
  });

  it('refuses v1beta1 storage: its budgets have no reasons, so the windows would stop consolidation too', () => {
    const r = planWindows(request, [pool('general')], 'v1beta1', now);
    expect(r).toEqual(windowsRefusedOn('v1beta1'));
    expect(windowsRefusedOn('v1beta1')?.refused).toMatch(/^upgrade windows need Karpenter's v1 NodePool/);
    expect(windowsRefusedOn('v1')).toBeUndefined();
  });

  it('refuses NodePools held with their nodes: the windows are budgets', () => {
    const argo = {
      pool: { name: 'batch' },
      hold: { nodePool: 'batch', mechanism: 'node' as const, why: 'its budgets are managed by Argo CD (field manager argocd-controller), which would put them back' },
    };
    const r = planWindows(request, [pool('general'), argo], 'v1', now);
    expect(r).toEqual({
      refused:
        'upgrade windows are budgets on the NodePool, and nodepool/batch would be held with its nodes (its budgets are managed by Argo CD (field manager argocd-controller), which would put them back)',
      next: expect.stringContaining('--hold-with budget') as string,
    });
  });

  it('inside a window: open, until when', () => {
    const r = planWindows(request, [pool('general')], 'v1', new Date('2026-11-30T03:10:00Z'));
    expect('plan' in r && r.plan.state).toEqual({ open: true, closesAt: new Date('2026-11-30T05:00:00Z') });
  });
});
