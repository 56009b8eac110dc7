// Where a rollout paused by its upgrade windows stands: its hold record keeps the `--window`/`--exclude` flags that
// asked for them (apis/budget-hold.ts `windowFlags`, written as the command line quotes them), so `status` and `wait`
// read the windows back and say when the next one opens, in the words the run itself ended with. Pure.
import { parseExclusion, parseWindow, type Exclusion, type UpgradeWindow } from '../windows/flags.js';
import { windowCalendar, windowState, type WindowState } from '../windows/calendar.js';

/** `--window '0 2 * * mon-thu/3h'` → `0 2 * * mon-thu/3h` (stages/request.ts `windowFlags` quotes as a shell does). */
function unquote(text: string): string {
  return text.startsWith("'") && text.endsWith("'") && text.length >= 2 ? text.slice(1, -1).replace(/'\\''/g, "'") : text;
}

/**
 * The windows recorded flags ask for, where they stand at `now`; undefined when a flag no longer reads (a
 * hand-edited record): the hold is then described without the time.
 */
export function recordedWindowState(flags: readonly string[], now: Date): WindowState | undefined {
  const windows: UpgradeWindow[] = [];
  const exclusions: Exclusion[] = [];
  for (const flag of flags) {
    const m = /^--(window|exclude) (.+)$/.exec(flag);
    if (m == null) return undefined;
    const parsed = m[1] === 'window' ? parseWindow(unquote(m[2]!)) : parseExclusion(unquote(m[2]!));
    if ('error' in parsed) return undefined;
    if ('durationMs' in parsed) windows.push(parsed);
    else exclusions.push(parsed);
  }
  if (windows.length === 0) return undefined;
  return windowState(windowCalendar(windows, exclusions), now);
}
