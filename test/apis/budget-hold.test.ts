import { describe, expect, it } from 'vitest';
import { allowedDisruptions, type Budget } from '../../src/karpenter/budgets.js';
import {
  decodeHoldRecord,
  encodeHoldRecord,
  heldAllowance,
  heldBudgets,
  sameBudgets,
  switchBudget,
  switchState,
  userBudgets,
  type HoldRecord,
} from '../../src/apis/budget-hold.js';

const now = new Date(Date.UTC(2026, 10, 25, 12));
const record = (budgets: Budget[] | null): HoldRecord => ({
  runId: 'r1',
  since: '2026-11-25T12:00:00.000Z',
  budgets,
});
const nightly: Budget = {
  nodes: '0',
  schedule: '0 22 * * *',
  duration: '8h',
  reasons: ['Drifted'],
};

describe('heldBudgets: the list karp-drift writes', () => {
  it.each<[string, Budget[] | null, number, Budget[]]>([
    [
      'absent field: the CRD default made explicit, then the hold',
      null,
      0,
      [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }],
    ],
    [
      'the user list first, in order, then the hold',
      [{ nodes: '20%' }, nightly],
      3,
      [{ nodes: '20%' }, nightly, { nodes: '3', reasons: ['Drifted'] }],
    ],
    ['an explicit empty list (unlimited) gains only the hold', [], 5, [{ nodes: '5', reasons: ['Drifted'] }]],
  ])('%s', (_name, user, allowance, expected) => {
    expect(heldBudgets(user, allowance)).toEqual({ budgets: expected });
  });

  it('refuses a list already at the CRD maximum of 50', () => {
    const full = Array.from({ length: 50 }, () => ({ nodes: '10%' }));
    expect(heldBudgets(full, 0)).toEqual({
      error:
        'it already has 50 disruption budgets, the most a NodePool may have (50): hold it with --hold-with node instead',
    });
  });

  // The allowance Karpenter computes never exceeds the hold, and never exceeds what the user's budgets allow.
  it.each<[string, Budget[] | null, number, number, number]>([
    ['hold 0 under 100%', [{ nodes: '100%' }], 0, 20, 0],
    ['hold 3 under the default 10% of 50 (5)', null, 3, 50, 3],
    ['hold 30 under the default 10% of 50: the user budget stays stricter', null, 30, 50, 5],
    ['hold 30 under a user "2"', [{ nodes: '2' }], 30, 50, 2],
    ['hold 4 under an unlimited empty list', [], 4, 50, 4],
  ])('never looser: %s', (_name, user, allowance, numNodes, expected) => {
    const written = heldBudgets(user, allowance);
    if ('error' in written) throw new Error(written.error);
    const before = allowedDisruptions(user ?? undefined, { numNodes, disrupting: 0 }, 'Drifted', now).allowed;
    const after = allowedDisruptions(written.budgets, { numNodes, disrupting: 0 }, 'Drifted', now).allowed;
    expect(after).toBe(expected);
    expect(after).toBeLessThanOrEqual(before);
  });

  it('leaves consolidation alone: the hold names only Drifted', () => {
    const written = heldBudgets(null, 0);
    if ('error' in written) throw new Error(written.error);
    expect(allowedDisruptions(written.budgets, { numNodes: 50, disrupting: 0 }, 'Underutilized', now).allowed).toBe(5);
  });
});

describe('userBudgets: what a release puts back', () => {
  it.each<[string, Budget[] | undefined, HoldRecord | undefined, Budget[] | null]>([
    ['not held: the live list', [{ nodes: '20%' }], undefined, [{ nodes: '20%' }]],
    ['not held, absent field', undefined, undefined, null],
    [
      'held: the live list without the hold',
      [{ nodes: '20%' }, nightly, { nodes: '0', reasons: ['Drifted'] }],
      record([{ nodes: '20%' }, nightly]),
      [{ nodes: '20%' }, nightly],
    ],
    [
      'held from an absent field: absent again',
      [{ nodes: '10%' }, { nodes: '2', reasons: ['Drifted'] }],
      record(null),
      null,
    ],
    [
      'held from an explicit 10%: the explicit 10% again',
      [{ nodes: '10%' }, { nodes: '2', reasons: ['Drifted'] }],
      record([{ nodes: '10%' }]),
      [{ nodes: '10%' }],
    ],
    // Somebody replaced the list while it was held (their GitOps sync, kubectl edit): their list wins.
    ['held, then replaced by the user', [{ nodes: '5%' }], record([{ nodes: '20%' }]), [{ nodes: '5%' }]],
    [
      'held, then the user added a budget before the hold',
      [{ nodes: '20%' }, { nodes: '1' }, { nodes: '0', reasons: ['Drifted'] }],
      record([{ nodes: '20%' }]),
      [{ nodes: '20%' }, { nodes: '1' }],
    ],
    ['held, field removed by the user', undefined, record([{ nodes: '20%' }]), null],
  ])('%s', (_name, live, rec, expected) => {
    expect(userBudgets(live, rec)).toEqual(expected);
  });

  it('restores byte for byte: hold then release is the identity on the user list', () => {
    for (const user of [
      null,
      [],
      [{ nodes: '20%' }, nightly],
      [{ nodes: '10%' }],
      [{ nodes: '0', reasons: ['Drifted' as const] }],
    ]) {
      const written = heldBudgets(user, 0);
      if ('error' in written) throw new Error(written.error);
      const restored = userBudgets(written.budgets, record(user));
      expect(restored).toEqual(user);
      expect(sameBudgets(restored, user)).toBe(true);
    }
  });
});

// A server without budget `reasons` (Karpenter v1beta1) keeps karp-drift's entries as plain budgets (DOMAIN.md §2.9):
// karp-drift's all the same when what stands before them is the list its record kept.
describe('a hold whose reasons the server pruned', () => {
  const pruned = (list: Budget[]) => list.map(({ reasons: _reasons, ...rest }) => rest);
  const nightlyKept: Budget = { nodes: '0', schedule: '0 22 * * *', duration: '8h' };

  it.each<[string, Budget[], Budget[] | null, Budget[] | null, number | undefined]>([
    ['from an absent field: absent again', [{ nodes: '10%' }, { nodes: '0' }], null, null, 0],
    [
      'from an explicit list',
      [{ nodes: '20%' }, nightlyKept, { nodes: '2' }],
      [{ nodes: '20%' }, nightlyKept],
      [{ nodes: '20%' }, nightlyKept],
      2,
    ],
    ['from an explicit empty list', [{ nodes: '0' }], [], [], 0],
    // Not the recorded list before it: a person's budgets, which a release leaves as they are.
    ['replaced by the user', [{ nodes: '5' }], [{ nodes: '20%' }], [{ nodes: '5' }], undefined],
    [
      'edited by the user while held',
      [{ nodes: '30%' }, { nodes: '0' }],
      [{ nodes: '20%' }],
      [{ nodes: '30%' }, { nodes: '0' }],
      undefined,
    ],
  ])('%s', (_name, live, user, expected, allowance) => {
    expect(userBudgets(live, record(user))).toEqual(expected);
    expect(heldAllowance(live, record(user))).toBe(allowance);
  });

  it('a staged run\'s switch and hold: released together, and the switch still says when it fires', () => {
    const armAt = new Date('2026-11-28T03:45:00Z');
    const user: Budget[] = [{ nodes: '10%' }];
    const live = pruned((heldBudgets(user, 3, armAt) as { budgets: Budget[] }).budgets);
    expect(live).toEqual([{ nodes: '10%' }, { nodes: '0', schedule: '45 3 28 11 *', duration: '8759h' }, { nodes: '3' }]);
    const rec = { runId: 'r1', since: '2026-11-28T03:40:00Z', budgets: user };
    expect(userBudgets(live, rec)).toEqual(user);
    expect(heldAllowance(live, rec)).toBe(3);
    expect(switchState(live, new Date('2026-11-28T03:50:00Z'), rec)).toEqual({ active: true, at: armAt });
    // Without the record, plain budgets are nobody's to take.
    expect(switchState(live, new Date('2026-11-28T03:50:00Z'))).toBeUndefined();
  });

  it('restores what the server kept before the hold: hold, prune, release is the identity', () => {
    for (const user of [null, [], [{ nodes: '20%' }, nightlyKept], [{ nodes: '10%' }], [{ nodes: '0' }]]) {
      const written = heldBudgets(user, 0);
      if ('error' in written) throw new Error(written.error);
      expect(userBudgets(pruned(written.budgets), record(user))).toEqual(user);
    }
  });
});

describe('hold record', () => {
  it('round-trips', () => {
    const r = record([{ nodes: '20%' }, nightly]);
    expect(decodeHoldRecord(encodeHoldRecord(r))).toEqual(r);
    expect(decodeHoldRecord(encodeHoldRecord(record(null)))).toEqual(record(null));
    const owned: HoldRecord = {
      ...record([{ nodes: '20%' }]),
      owners: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'karpenter.sh/v1', time: '2026-11-20T09:00:00Z' }],
    };
    expect(decodeHoldRecord(encodeHoldRecord(owned))).toEqual(owned);
  });

  it.each<[string | undefined, unknown]>([
    [undefined, undefined],
    ['{', { error: 'annotation karp-drift.io/drift-hold is not JSON' }],
    ['"x"', { error: 'annotation karp-drift.io/drift-hold is not an object' }],
    ['{"since":"x","budgets":null}', { error: 'annotation karp-drift.io/drift-hold has no runId or since' }],
    [
      '{"runId":"a","since":"x","budgets":[{"n":1}]}',
      { error: 'annotation karp-drift.io/drift-hold has no budgets list' },
    ],
    [
      '{"runId":"a","since":"x","budgets":null,"owners":[{"manager":"kubectl","operation":"Patch","apiVersion":"v1"}]}',
      { error: 'annotation karp-drift.io/drift-hold has a malformed owners list' },
    ],
  ])('decodes %j', (text, expected) => {
    expect(decodeHoldRecord(text)).toEqual(expected);
  });

  it('reads the allowance it wrote', () => {
    expect(heldAllowance([{ nodes: '10%' }, { nodes: '4', reasons: ['Drifted'] }], record(null))).toBe(4);
    expect(heldAllowance([{ nodes: '10%' }], record(null))).toBeUndefined();
    expect(heldAllowance([{ nodes: '4', reasons: ['Drifted'] }], undefined)).toBeUndefined();
  });

  it('compares budgets field by field, whatever the key order', () => {
    expect(sameBudgets([{ reasons: ['Drifted'], nodes: '1' }], [{ nodes: '1', reasons: ['Drifted'] }])).toBe(true);
    expect(sameBudgets([{ nodes: '1' }], [{ nodes: '1', reasons: ['Drifted'] }])).toBe(false);
    expect(sameBudgets(null, [])).toBe(false);
  });
});

// The dead man's switch itself, over a year and across leap years: dead-mans-switch.test.ts.
describe("a staged run's dead man's switch in the list", () => {
  const armAt = new Date('2026-11-28T03:45:00Z');
  it('is written before the hold, taken off with it, and read with Karpenter\'s IsActive', () => {
    const user: Budget[] = [{ nodes: '10%' }];
    const written = heldBudgets(user, 3, armAt);
    expect(written).toEqual({ budgets: [{ nodes: '10%' }, switchBudget(armAt), { nodes: '3', reasons: ['Drifted'] }] });
    const live = (written as { budgets: Budget[] }).budgets;
    const record = { runId: 'r1', since: '2026-11-28T03:40:00Z', budgets: user };
    expect(userBudgets(live, record)).toEqual(user);
    expect(heldAllowance(live, record)).toBe(3);
    expect(switchState(live, new Date('2026-11-28T03:43:00Z'))).toEqual({ active: false, at: armAt });
    expect(switchState(live, new Date('2026-11-28T03:50:00Z'))).toEqual({ active: true, at: armAt });
    expect(switchState((heldBudgets(user, 0) as { budgets: Budget[] }).budgets, armAt)).toBeUndefined();
  });

  it('one written by a karp-drift before switches lasted a year (720h) is still found, released and read as it is', () => {
    const old: Budget = { ...switchBudget(armAt), duration: '720h' };
    const live: Budget[] = [{ nodes: '10%' }, old, { nodes: '3', reasons: ['Drifted'] }];
    const record = { runId: 'r1', since: '2026-11-28T03:40:00Z', budgets: [{ nodes: '10%' }] };
    expect(userBudgets(live, record)).toEqual([{ nodes: '10%' }]);
    // 31 days on, Karpenter lets it go (the bug of issue 35): read as it is, not as "fired".
    expect(switchState(live, new Date('2026-12-29T03:45:00Z'), record)).toEqual({ active: false, at: new Date('2027-11-28T03:45:00Z') });
  });
});

describe("upgrade windows' budgets in the hold", () => {
  const armAt = new Date('2026-11-28T03:45:00Z');
  // Monday to Thursday 02:00-05:00 (windows/budgets.ts): Drifted at 0 in the gaps between the windows.
  const windows: Budget[] = [
    { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 1-3', duration: '21h' },
    { nodes: '0', reasons: ['Drifted'], schedule: '0 5 * * 4', duration: '93h' },
  ];
  const user: Budget[] = [{ nodes: '20%' }, nightly];
  const hold: Budget = { nodes: '2', reasons: ['Drifted'] };
  const live = (heldBudgets(user, 2, armAt, windows) as { budgets: Budget[] }).budgets;
  const withWindows = { ...record(user), windows, windowFlags: ["--window '0 2 * * mon-thu/3h'"] };

  it('are written after the NodePool’s own budgets, before the switch and the hold', () => {
    expect(live).toEqual([...user, ...windows, switchBudget(armAt), hold]);
  });

  it.each<[string, Budget[], HoldRecord, Budget[] | null]>([
    ['the release strips them with the switch and the hold: the own list exactly', live, withWindows, user],
    [
      'an absent field comes back absent',
      (heldBudgets(null, 0, armAt, windows) as { budgets: Budget[] }).budgets,
      { ...withWindows, budgets: null },
      null,
    ],
    [
      'somebody put a list back meanwhile (a GitOps sync): theirs wins, windows and all gone',
      [{ nodes: '5' }],
      withWindows,
      [{ nodes: '5' }],
    ],
    [
      'windows edited by hand no longer match the record: only the switch and the hold are ours',
      [...user, { ...windows[0]!, duration: '20h' }, windows[1]!, switchBudget(armAt), hold],
      withWindows,
      [...user, { ...windows[0]!, duration: '20h' }, windows[1]!],
    ],
  ])('%s', (_name, liveList, rec, own) => {
    expect(userBudgets(liveList, rec)).toEqual(own);
  });

  it('a pause because the windows were closed is recorded, and read back; anything else there is not', () => {
    const encoded = encodeHoldRecord({ ...withWindows, pausedBy: 'window' });
    expect(decodeHoldRecord(encoded)).toEqual({ ...withWindows, pausedBy: 'window' });
    expect(decodeHoldRecord(encoded.replace('"window"}', '"gate"}'))).toEqual(withWindows);
  });

  it('keep the hold’s allowance and switch readable', () => {
    expect(heldAllowance(live, withWindows)).toBe(2);
    expect(switchState(live, new Date('2026-11-28T03:50:00Z'), withWindows)).toEqual({ active: true, at: armAt });
  });

  it('hold Drifted at 0 outside the windows and let the hold decide inside them, as Karpenter reads the list', () => {
    // The user's nightly freeze (22:00-06:00) would hide the windows: only their own 20 % beside them here. Each list
    // as a live run leaves it at that time: its switch armed a few minutes ahead (a switch only exists from its write).
    const list = (at: Date) =>
      (heldBudgets([{ nodes: '20%' }], 2, new Date(at.getTime() + 180_000), windows) as { budgets: Budget[] }).budgets;
    const allowed = (at: string, reason: 'Drifted' | 'Underutilized' = 'Drifted') =>
      allowedDisruptions(list(new Date(at)), { numNodes: 20, disrupting: 0 }, reason, new Date(at)).allowed;
    expect(allowed('2026-11-23T03:00:00Z')).toBe(2); // Monday 03:00, inside
    expect(allowed('2026-11-23T05:00:00Z')).toBe(0); // Monday 05:00, closed
    expect(allowed('2026-11-22T03:00:00Z')).toBe(0); // Sunday, closed
    // Consolidation is never touched by them.
    expect(allowed('2026-11-23T05:00:00Z', 'Underutilized')).toBe(4);
  });

  it('count toward Karpenter’s 50, with a message that says to use fewer windows', () => {
    const many = Array.from({ length: 47 }, () => ({ nodes: '10%' }));
    expect(heldBudgets(many, 0, armAt, windows)).toEqual({
      error:
        "it has 47 disruption budgets, and a staged rollout's hold adds 4 (2 for the windows) (a NodePool may have 50): use fewer windows and exclusions",
    });
  });

  it('are kept in the record, and a malformed list is refused', () => {
    expect(decodeHoldRecord(encodeHoldRecord(withWindows))).toEqual(withWindows);
    expect(decodeHoldRecord(JSON.stringify({ runId: 'r', since: 's', budgets: null, windows: [{}] }))).toEqual({
      error: 'annotation karp-drift.io/drift-hold has a malformed windows list',
    });
  });
});
