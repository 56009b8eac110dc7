// --canary, --waves, --soak, --hold-with and --lock-namespace: flags as commander gives them in, a StagedRequest or
// the exact message of a bad value (exit 2) out.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { DEFAULT_GATES } from '../../src/gates/request.js';
import {
  parseGateOptions,
  parseLockOptions,
  parseRollbackStagedOptions,
  parseStagedOptions,
  withRollbackWaves,
} from '../../src/cli/stage-options.js';
import { stagedFlags, type StagedRequest } from '../../src/stages/request.js';
import { AMI_WAVE, type WaveStep } from '../../src/stages/waves.js';

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError');
}
const usageMessage = (fn: () => unknown) => usageError(fn).message;

interface Flags {
  canary?: string[];
  waves?: string;
  soak?: string;
  holdWith?: string;
}

const pct = (value: number): WaveStep => ({ kind: 'percent', value, text: `${value}%` });
const count = (value: number): WaveStep => ({ kind: 'count', value, text: `${value}` });

const DEFAULT_ROLLOUT: StagedRequest = {
  canary: [],
  waves: [AMI_WAVE, pct(100)],
  soakMs: 0,
  holdWith: 'auto',
  gates: DEFAULT_GATES,
  defaulted: true,
};

describe('parseStagedOptions: accepted', () => {
  it.each<[string, Flags, ReturnType<typeof parseStagedOptions>]>([
    ['no staged flags: the default rollout, each target AMI on one node first', {}, DEFAULT_ROLLOUT],
    ['an empty --canary list: the default rollout', { canary: [] }, DEFAULT_ROLLOUT],
    ['--soak alone soaks the default rollout', { soak: '5m' }, { ...DEFAULT_ROLLOUT, soakMs: 300_000 }],
    ['--hold-with alone holds the default rollout so', { holdWith: 'node' }, { ...DEFAULT_ROLLOUT, holdWith: 'node' }],
    [
      '1/ami first in --waves',
      { waves: '1/AMI,10%,100%' },
      { canary: [], waves: [AMI_WAVE, pct(10), pct(100)], soakMs: 0, holdWith: 'auto', gates: DEFAULT_GATES },
    ],
    [
      'canary only: one wave per stage, no soak, auto',
      { canary: ['canary'] },
      { canary: ['canary'], waves: [pct(100)], soakMs: 0, holdWith: 'auto', gates: DEFAULT_GATES },
    ],
    [
      'a repeated --canary keeps its order, once each',
      { canary: ['b', 'a', 'b'] },
      { canary: ['b', 'a'], waves: [pct(100)], soakMs: 0, holdWith: 'auto', gates: DEFAULT_GATES },
    ],
    [
      'waves only: no canary',
      { waves: '1,10%,100%' },
      { canary: [], waves: [count(1), pct(10), pct(100)], soakMs: 0, holdWith: 'auto', gates: DEFAULT_GATES },
    ],
    [
      'everything',
      { canary: ['canary'], waves: ' 1, 25 ,50%', soak: '1h30m', holdWith: 'node' },
      {
        canary: ['canary'],
        waves: [count(1), count(25), pct(50)],
        soakMs: 90 * 60_000,
        holdWith: 'node',
        gates: DEFAULT_GATES,
      },
    ],
    [
      'counts and percentages compare only within their kind',
      { waves: '50%,10', holdWith: 'budget' },
      { canary: [], waves: [pct(50), count(10)], soakMs: 0, holdWith: 'budget', gates: DEFAULT_GATES },
    ],
  ])('%s', (_name, flags, expected) => {
    expect(parseStagedOptions({ ...flags })).toEqual(expected);
  });
});

describe('parseStagedOptions: usage errors', () => {
  it('no stage flags where there is no rollout to stage: undefined', () => {
    expect(parseStagedOptions({}, { flag: '--no-wait' })).toBeUndefined();
    expect(parseStagedOptions({ canary: [] }, { flag: '--templates' })).toBeUndefined();
  });

  it.each<[string, Flags, '--no-wait' | '--templates', string]>([
    ['--soak', { soak: '15m' }, '--no-wait', 'drop --no-wait: upgrade then stages and gates the rollout while it follows it'],
    ['--hold-with', { holdWith: 'node' }, '--no-wait', 'drop --no-wait: upgrade then stages and gates the rollout while it follows it'],
    [
      '--soak',
      { soak: '15m', holdWith: 'node', canary: [] },
      '--templates',
      'apply the templates first (upgrade --templates ...), then stage the rollout with upgrade --to <minor>',
    ],
  ])('%s with %s, which has no staged rollout', (flag, flags, unstaged, hint) => {
    const err = usageError(() => parseStagedOptions({ ...flags }, { flag: unstaged }));
    expect(err.message).toBe(`${flag} paces a staged rollout, and ${unstaged} has none`);
    expect(err.hint).toBe(hint);
  });

  it.each<[string, string]>([
    ['', '--waves: "" is not a list of wave sizes: use counts and percentages separated by commas, e.g. 1,10%,100%'],
    [
      '1,,5',
      '--waves: "1,,5" is not a list of wave sizes: use counts and percentages separated by commas, e.g. 1,10%,100%',
    ],
    ['abc', '--waves: wave "abc" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['1.5', '--waves: wave "1.5" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['-1', '--waves: wave "-1" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['2/ami', '--waves: wave "2/ami" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['1,1/ami', '--waves: "1/ami" tests each target AMI first, so it can only be the first wave'],
    ['0', '--waves: wave "0" replaces no node: every wave must be at least 1 or 1%'],
    ['0%', '--waves: wave "0%" replaces no node: every wave must be at least 1 or 1%'],
    ['1,0', '--waves: wave "0" replaces no node: every wave must be at least 1 or 1%'],
    ['150%', '--waves: wave "150%" is over 100%'],
    ['10%,5%', '--waves: waves are cumulative and must increase: "5%" follows "10%"'],
    ['5,3', '--waves: waves are cumulative and must increase: "3" follows "5"'],
    ['5,5', '--waves: waves are cumulative and must increase: "5" follows "5"'],
    ['1,100%,5', '--waves: "5" follows "100%", which is already the whole stage'],
  ])('--waves %j', (waves, message) => {
    const err = usageError(() => parseStagedOptions({ waves, canary: ['canary'] }));
    expect(err.message).toBe(message);
    expect(err.hint).toBe('e.g. --waves 1/ami,10%,100% (cumulative: one node per target AMI, then up to 10 %, then the rest)');
  });

  it.each<[string, Flags, string]>([
    [
      '--soak abc',
      { waves: '100%', soak: 'abc' },
      '--soak "abc" is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)',
    ],
    [
      '--soak 15 (no unit)',
      { canary: ['c'], soak: '15' },
      '--soak "15" is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h (units ms, s, m, h, d; d is 24h)',
    ],
    ['--hold-with x', { waves: '100%', holdWith: 'x' }, '--hold-with "x" must be auto, budget or node'],
    [
      '--canary BAD_NAME',
      { canary: ['canary', 'BAD_NAME'] },
      '--canary "BAD_NAME" is not a NodePool name (a lowercase DNS-1123 name)',
    ],
    [
      '--canary BAD_NAME, even with --waves',
      { canary: ['BAD_NAME'], waves: '1,100%' },
      '--canary "BAD_NAME" is not a NodePool name (a lowercase DNS-1123 name)',
    ],
  ])('%s', (_name, flags, message) => {
    expect(usageMessage(() => parseStagedOptions({ ...flags }))).toBe(message);
  });
});

describe('parseLockOptions', () => {
  it.each<[Record<string, unknown>, string]>([
    [{}, 'kube-system'],
    [{ lockNamespace: 'karp-drift' }, 'karp-drift'],
    [{ lockNamespace: 'a'.repeat(63) }, 'a'.repeat(63)],
  ])('%j → %s', (flags, ns) => {
    expect(parseLockOptions(flags)).toEqual({ lockNamespace: ns });
  });

  it.each(['Kube-System', 'kube_system', '-leading', 'trailing-', 'a.b', '', 'a'.repeat(64)])(
    '--lock-namespace %j',
    (ns) => {
      expect(usageMessage(() => parseLockOptions({ lockNamespace: ns }))).toBe(
        ns === ''
          ? '--lock-namespace is empty (is the shell variable you passed unset?)'
          : `--lock-namespace ${JSON.stringify(ns)} is not a namespace name (a lowercase DNS-1123 label)`,
      );
    },
  );
});

describe('parseGateOptions', () => {
  it.each<[string, Record<string, unknown>, Partial<typeof DEFAULT_GATES>]>([
    ['no gate flags: the defaults', {}, {}],
    ['--no-gates', { gates: false }, { builtIn: false }],
    [
      'every flag',
      {
        initDeadline: '20s',
        podReadyDeadline: '1m',
        maxRestarts: '0',
        failureLimit: '3',
        gateCmd: " ./smoke.sh 'a b' ",
        gateTimeout: '30s',
        gateInterval: '2m',
        onFailure: 'rollback',
      },
      {
        initDeadlineMs: 20_000,
        podReadyDeadlineMs: 60_000,
        maxRestarts: 0,
        failureLimit: 3,
        command: "./smoke.sh 'a b'",
        commandTimeoutMs: 30_000,
        commandIntervalMs: 120_000,
        onFailure: 'rollback',
      },
    ],
  ])('%s', (_name, flags, expected) => {
    expect(parseGateOptions(flags)).toEqual({ ...DEFAULT_GATES, ...expected });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      '--failure-limit 0',
      { failureLimit: '0' },
      '--failure-limit "0" is not valid; expected a whole number of at least 1',
    ],
    [
      '--max-restarts -1',
      { maxRestarts: '-1' },
      '--max-restarts "-1" is not valid; expected a whole number of at least 0',
    ],
    ['--on-failure stop', { onFailure: 'stop' }, '--on-failure "stop" is not valid; expected pause or rollback'],
    [
      '--gate-cmd empty',
      { gateCmd: '  ' },
      '--gate-cmd is empty; give the command to run after each wave and soak (exit 0 passes)',
    ],
    ['--gate-timeout alone', { gateTimeout: '1m' }, '--gate-timeout goes with --gate-cmd, and there is none'],
    ['--init-deadline 0s', { initDeadline: '0s' }, '--init-deadline "0s" must be longer than 0: no replacement is Initialized the moment it is created'],
  ])('%s', (_name, flags, message) => {
    expect(usageMessage(() => parseGateOptions(flags))).toBe(message);
  });

  it('a gate flag where there is no staged rollout is an error, not ignored', () => {
    expect(usageMessage(() => parseStagedOptions({ gateCmd: 'true' }, { flag: '--no-wait' }))).toBe(
      '--gate-cmd gates a staged rollout, and --no-wait has none',
    );
    expect(usageMessage(() => parseStagedOptions({ gates: false }, { flag: '--templates' }))).toBe(
      '--no-gates gates a staged rollout, and --templates has none',
    );
  });

  it('gate flags alone adjust the default rollout; its resume command asks for them, not for its waves', () => {
    const request = parseStagedOptions({ gates: false, onFailure: 'rollback' })!;
    expect(request).toMatchObject({ defaulted: true, waves: [AMI_WAVE, pct(100)], gates: { builtIn: false, onFailure: 'rollback' } });
    expect(stagedFlags(request)).toEqual(['--no-gates', '--on-failure rollback']);
  });

  it('the resume hint asks for the same gates again', () => {
    const request = parseStagedOptions({
      canary: ['canary'],
      gateCmd: "echo 'ok'",
      onFailure: 'rollback',
      failureLimit: '2',
    })!;
    expect(stagedFlags(request)).toEqual([
      '--canary canary',
      '--waves 100%',
      '--failure-limit 2',
      `--gate-cmd 'echo '\\''ok'\\'''`,
      '--on-failure rollback',
    ]);
  });
});

describe('--window and --exclude', () => {
  it('--window alone is a staged rollout of one stage in one wave (--waves 100%), and asks for itself again', () => {
    const r = parseStagedOptions({ window: ['0 2 * * mon-thu/3h'], exclude: ['2026-12-24/2026-12-26'] })!;
    expect(r.canary).toEqual([]);
    expect(r.waves).toEqual([pct(100)]);
    expect(r.windows?.windows.map((w) => [w.schedule, w.durationMs])).toEqual([['0 2 * * mon-thu', 3 * 3_600_000]]);
    expect(r.windows?.exclusions.map((e) => [e.from.toISOString(), e.to.toISOString()])).toEqual([
      ['2026-12-24T00:00:00.000Z', '2026-12-27T00:00:00.000Z'],
    ]);
    expect(stagedFlags(r)).toEqual(['--waves 100%', "--window '0 2 * * mon-thu/3h'", '--exclude 2026-12-24/2026-12-26']);
  });

  it('goes with --canary/--waves as given', () => {
    const r = parseStagedOptions({ canary: ['canary'], waves: '1,100%', window: ['0 22 * * */8h', '0 2 * * sat/4h'] })!;
    expect(r.waves).toEqual([count(1), pct(100)]);
    expect(r.windows?.windows.map((w) => w.text)).toEqual(['0 22 * * */8h', '0 2 * * sat/4h']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      '--exclude without a window',
      { exclude: ['2026-12-24/2026-12-26'] },
      '--exclude closes part of an upgrade window, and there is none: give --window with it',
    ],
    ['a window without a duration', { window: ['0 2 * * *'] }, '--window "0 2 * * *" has no duration after its last "/"'],
    [
      'a window on the 1st of the month',
      { window: ['0 2 1 * */3h'] },
      '--window "0 2 1 * */3h": a window repeats every week, so its day of month and month must be * (here "0 2 1 * *")',
    ],
    [
      'an exclusion not in UTC',
      { window: ['0 2 * * */3h'], exclude: ['2026-12-24T18:00+01:00/2026-12-25T06:00Z'] },
      '--exclude "2026-12-24T18:00+01:00/2026-12-25T06:00Z": "2026-12-24T18:00+01:00" is not in UTC: windows and exclusions are UTC, as Karpenter reads budget schedules (write it with Z)',
    ],
  ])('%s: exit 2, named', (_name, flags, message) => {
    expect(usageMessage(() => parseStagedOptions(flags))).toBe(message);
  });
});

describe('--window-exit-code', () => {
  const WINDOW = ['0 2 * * mon-thu/3h'];
  it.each<[string, number, string[]]>([
    ['0', 0, ['--window-exit-code 0']],
    ['255', 255, ['--window-exit-code 255']],
    // The default asked for outright: the same command, so nothing to say again.
    ['7', 7, []],
  ])('%s: the exit status of a run paused by its window, asked for again unless it is the default', (text, code, again) => {
    const r = parseStagedOptions({ window: WINDOW, windowExitCode: text })!;
    expect(r.windows?.exitCode).toBe(code);
    expect(stagedFlags(r)).toEqual(['--waves 100%', "--window '0 2 * * mon-thu/3h'", ...again]);
  });

  it('absent: none recorded, so the run exits 7', () => {
    expect(parseStagedOptions({ window: WINDOW })!.windows).not.toHaveProperty('exitCode');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'without --window',
      { windowExitCode: '0' },
      '--window-exit-code is the exit status of a run paused by its upgrade window, and there is none: give --window with it',
      "e.g. --window '0 2 * * mon-thu/3h' --window-exit-code 0 (for a scheduler that counts only 0 as success)",
    ],
    ...['256', '-1', '1.5', 'zero', '', '0x1', '1000'].map((v): [string, Record<string, unknown>, string, string] => [
      JSON.stringify(v),
      { window: WINDOW, windowExitCode: v },
      `--window-exit-code ${JSON.stringify(v)} is not valid; expected an exit status from 0 to 255`,
      'e.g. --window-exit-code 0 where the scheduler counts only 0 as success (a Kubernetes CronJob); 7 is the default',
    ]),
  ])('%s: exit 2, named', (_name, flags, message, hint) => {
    const err = usageError(() => parseStagedOptions(flags));
    expect([err.message, err.hint]).toEqual([message, hint]);
  });
});

describe('rollback: parseRollbackStagedOptions', () => {
  it.each<[string, Record<string, unknown>, ReturnType<typeof parseRollbackStagedOptions>]>([
    ['no stage flags: the fast rollback', {}, undefined],
    [
      '--waves: staged as an upgrade is, with the default gates',
      { waves: '1,100%', soak: '10m' },
      { canary: [], waves: [count(1), pct(100)], soakMs: 10 * 60_000, holdWith: 'auto', gates: DEFAULT_GATES },
    ],
    [
      '--canary alone: the canary goes back first, in one wave',
      { canary: ['canary'] },
      { canary: ['canary'], waves: [pct(100)], soakMs: 0, holdWith: 'auto', gates: DEFAULT_GATES },
    ],
    [
      'the gate flags mean what they mean for an upgrade',
      { waves: '100%', maxRestarts: '5', gates: false },
      { canary: [], waves: [pct(100)], soakMs: 0, holdWith: 'auto', gates: { ...DEFAULT_GATES, builtIn: false, maxRestarts: 5 } },
    ],
  ])('%s', (_name, flags, expected) => {
    expect(parseRollbackStagedOptions(flags)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['--soak alone', { soak: '5m' }, '--soak paces or gates a staged rollback, and there is none: give --waves or --canary with it'],
    ['--hold-with alone', { holdWith: 'node' }, '--hold-with paces or gates a staged rollback, and there is none: give --waves or --canary with it'],
    ['--gate-cmd alone', { gateCmd: './smoke.sh' }, '--gate-cmd paces or gates a staged rollback, and there is none: give --waves or --canary with it'],
    ['--no-gates alone', { gates: false }, '--no-gates paces or gates a staged rollback, and there is none: give --waves or --canary with it'],
    ['--on-failure pause alone', { onFailure: 'pause' }, '--on-failure paces or gates a staged rollback, and there is none: give --waves or --canary with it'],
    ['--on-failure rollback', { waves: '1,100%', onFailure: 'rollback' }, '--on-failure rollback cannot go with rollback: nothing is recorded to roll a rollback back to'],
    ['a bad --waves, as an upgrade says it', { waves: '5,3' }, '--waves: waves are cumulative and must increase: "3" follows "5"'],
    ['--waves 1/ami', { waves: '1/ami,100%' }, '--waves: a rollback cannot take a 1/ami wave: its AMIs are the previous ones, known only as the IDs Karpenter resolves once they are restored'],
  ])('%s', (_name, flags, message) => {
    expect(usageMessage(() => parseRollbackStagedOptions(flags))).toBe(message);
  });
});

describe('upgrade --rollback-waves: withRollbackWaves', () => {
  const staged = (onFailure: 'pause' | 'rollback') => parseStagedOptions({ canary: ['canary'], onFailure })!;

  it('absent: the request as it was; given with --on-failure rollback: the rollback is staged in these waves', () => {
    expect(withRollbackWaves({}, staged('rollback'))).toEqual(staged('rollback'));
    expect(withRollbackWaves({}, undefined)).toBeUndefined();
    expect(withRollbackWaves({ rollbackWaves: '1,100%' }, staged('rollback'))).toEqual({ ...staged('rollback'), rollbackWaves: [count(1), pct(100)] });
  });

  it.each<[string, Record<string, unknown>, ReturnType<typeof parseStagedOptions>, string]>([
    ['without --on-failure rollback', { rollbackWaves: '1,100%' }, staged('pause'), '--rollback-waves paces the rollback of --on-failure rollback, and there is none: give --on-failure rollback with it'],
    ['without a staged upgrade (--no-wait, --templates)', { rollbackWaves: '1,100%' }, undefined, '--rollback-waves paces the rollback of a halted staged rollout, and this upgrade has none'],
    ['a bad list', { rollbackWaves: '10%,5%' }, staged('rollback'), '--rollback-waves: waves are cumulative and must increase: "5%" follows "10%"'],
    ['1/ami', { rollbackWaves: '1/ami,100%' }, staged('rollback'), '--rollback-waves: a rollback cannot take a 1/ami wave: its AMIs are the previous ones, known only as the IDs Karpenter resolves once they are restored'],
  ])('%s', (_name, flags, request, message) => {
    expect(usageMessage(() => withRollbackWaves(flags, request))).toBe(message);
  });

  it('the command that goes on asks for the staged rollback again', () => {
    expect(stagedFlags(withRollbackWaves({ rollbackWaves: '1,25%' }, staged('rollback'))!)).toEqual([
      '--canary canary',
      '--waves 100%',
      '--on-failure rollback',
      '--rollback-waves 1,25%',
    ]);
  });
});
