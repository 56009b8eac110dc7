// A rollout paused by its upgrade windows: the windows read back from the flags its hold record keeps, for `status`
// and `wait` ("waiting for the window that opens in …").
import { describe, expect, it } from 'vitest';
import { recordedWindowState } from '../../src/stages/window-hold.js';
import { windowFlags } from '../../src/stages/request.js';
import { parseExclusion, parseWindow, type Exclusion, type UpgradeWindow } from '../../src/windows/flags.js';

const now = new Date('2026-11-28T22:48:00Z'); // Saturday
const w = (text: string) => parseWindow(text) as UpgradeWindow;
const x = (text: string) => parseExclusion(text) as Exclusion;

describe('recordedWindowState', () => {
  it.each<[string, string[], ReturnType<typeof recordedWindowState>]>([
    ['closed: when the next opens', ["--window '0 2 * * mon-thu/3h'"], { open: false, opensAt: new Date('2026-11-30T02:00:00Z') }],
    ['open: until when', ["--window '0 22 * * */1h'"], { open: true, closesAt: new Date('2026-11-28T23:00:00Z') }],
    [
      'an exclusion over the next window moves it on',
      ["--window '0 2 * * mon-thu/3h'", '--exclude 2026-11-30/2026-11-30'],
      { open: false, opensAt: new Date('2026-12-01T02:00:00Z') },
    ],
    ['a flag that no longer reads (a hand-edited record): not known', ["--window '0 2 * * mon-thu/3x'"], undefined],
    ['not a flag at all', ['0 2 * * mon-thu/3h'], undefined],
    ['exclusions alone ask for no window', ['--exclude 2026-11-30/2026-11-30'], undefined],
  ])('%s', (_name, flags, state) => {
    expect(recordedWindowState(flags, now)).toEqual(state);
  });

  it('reads back exactly what a run records, quotes and all', () => {
    const request = { windows: [w("0 2 * * mon-thu/3h"), w('30 22 * * sat/90m')], exclusions: [x('2026-12-24/2026-12-26')] };
    const flags = windowFlags(request);
    expect(flags).toEqual(["--window '0 2 * * mon-thu/3h'", "--window '30 22 * * sat/90m'", '--exclude 2026-12-24/2026-12-26']);
    expect(recordedWindowState(flags, now)).toEqual({ open: true, closesAt: new Date('2026-11-29T00:00:00Z') });
  });
});
