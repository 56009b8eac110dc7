// One grammar for every duration flag. It was two: Go's for the timeouts (kubectl's --timeout takes `90s`, `1h30m`) and
// whole days and hours for --min-age (`7d`), so `--timeout 1d` was refused where `--min-age 7d` was the documented
// form. Now every flag takes Go's grammar plus `d` for 24 hours: a user who writes days for an age writes them for a
// timeout too. What 0 means is each flag's own (none, or refused because there is no "never"), written down here, and
// the reference (docs/reference/durations.md) is generated from this table.
import { UsageError } from '../errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export const DURATION_FORMS = '90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)';

/** What 0 means for each duration flag: `zero` it is (and says so), or it is refused, and `refused` says why. */
export type ZeroMeaning = { zero: string } | { refused: string };

export const DURATION_FLAGS = {
  '--timeout': { refused: 'there is no "never"; give a long one, e.g. 7d' },
  '--stall-timeout': { refused: 'every moment would be a stall; give a long one to wait out slow replacements, e.g. 2h' },
  '--sync-timeout': { refused: 'the wait for the sync needs an end; give a long one, e.g. 1d' },
  '--request-timeout': { refused: 'a request needs a limit, or an API server that never answers hangs the run' },
  '--gate-timeout': { refused: 'the gate command would be killed as it starts' },
  '--gate-interval': { refused: 'leave --gate-interval out to run the gate only after each wave and soak' },
  '--init-deadline': { refused: 'no replacement is Initialized the moment it is created' },
  '--pod-ready-deadline': { refused: 'no pod is Ready the moment it is created' },
  '--soak': { zero: 'no soak: the next wave or stage opens once the gates have passed' },
  '--min-age': { zero: 'no minimum: the newest release, as without --min-age' },
} as const satisfies Record<string, ZeroMeaning>;

export type DurationFlag = keyof typeof DURATION_FLAGS;

/**
 * Go's time.ParseDuration grammar (`90s`, `1h30m`, `1.5h`, a lone `0`) plus `d`: one or more decimal numbers, each
 * with its unit. Milliseconds; the flag's own meaning of 0 is applied by `parseFlagDuration`.
 */
export function parseDuration(value: string, flag: string): number {
  const text = value.trim();
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h|d)/g)];
  if (text === '' || parts.map((p) => p[0]).join('') !== text) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not a duration; write ${DURATION_FORMS}`);
  }
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0);
}

/** A duration flag's value in milliseconds, with 0 taken as the flag defines it (`DURATION_FLAGS`). */
export function parseFlagDuration(value: string, flag: DurationFlag): number {
  const ms = parseDuration(value, flag);
  const meaning: ZeroMeaning = DURATION_FLAGS[flag];
  if (ms === 0 && 'refused' in meaning) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be longer than 0: ${meaning.refused}`);
  }
  return ms;
}
