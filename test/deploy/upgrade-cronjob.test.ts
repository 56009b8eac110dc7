// deploy/upgrade-cronjob.yaml, checked without a cluster: its command line is one the CLI's own parsers accept, its
// schedule fires only inside the window that command names (read with the cron grammar Karpenter and the CronJob
// controller share, robfig/cron), its Job outlives no run and kills none early, and its failure policy is
// docs/reference/exit-codes.md's. Each check is a function returning problems, shown to find them in a broken copy.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { parseUpgradeOptions } from '../../src/cli/options.js';
import { parseLockOptions, parseStagedOptions } from '../../src/cli/stage-options.js';
import { cronFields } from '../../src/karpenter/cron.js';
import type { StagedRequest } from '../../src/stages/request.js';
import { worstCaseMs } from '../../src/stages/budget.js';
import { windowCalendar } from '../../src/windows/calendar.js';
import { weekHits } from '../../src/windows/week.js';
import { cronJob, manifests, type CronJob } from './upgrade-cronjob.js';

/** What pod start, discovery and the AMI lookups take before the run's own clock starts (as test/examples.test.ts). */
const SETUP_MARGIN_MS = 10 * 60_000;

/** The args as the CLI parses them: commander's flags (defaults included), then upgrade's own option parsers. */
async function parsedArgs(args: readonly string[]): Promise<{ timeoutMs: number; staged: StagedRequest }> {
  const program = buildProgram({
    io: { out: () => undefined, err: () => undefined, interactive: false },
    env: {},
    stdoutIsTTY: false,
    signal: new AbortController().signal,
  });
  program.exitOverride();
  const upgrade = program.commands.find((c) => c.name() === 'upgrade')!;
  upgrade.exitOverride();
  let flags: Record<string, unknown> | undefined;
  upgrade.action((opts: Record<string, unknown>) => {
    flags = opts;
  });
  await program.parseAsync([...args], { from: 'user' });
  if (args[0] !== 'upgrade' || flags === undefined) throw new Error(`not an upgrade: ${args.join(' ')}`);
  const options = { ...parseUpgradeOptions(flags), ...parseLockOptions(flags) };
  const staged = parseStagedOptions(flags);
  if (staged === undefined) throw new Error('not a staged upgrade');
  return { timeoutMs: options.timeoutMs, staged };
}

/** Ticks of the schedule that fall outside the windows, and window starts with no tick: `Tue 05:00` and the like. */
function scheduleProblems(job: CronJob, staged: StagedRequest): string[] {
  const { schedule, timeZone } = job.spec;
  const problems = timeZone === 'Etc/UTC' ? [] : [`timeZone ${timeZone}: the windows are UTC`];
  const fields = cronFields(schedule);
  if ('error' in fields) return [...problems, `schedule ${schedule}: ${fields.error}`];
  if (!fields.dom.star || !fields.month.star) return [...problems, `schedule ${schedule}: not weekly`];
  const windows = staged.windows!.windows;
  const calendar = windowCalendar(windows, []);
  const ticks = weekHits(fields);
  const day = (m: number) => ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][Math.floor(m / 1440)]!;
  const at = (m: number) =>
    `${day(m)} ${String(Math.floor((m % 1440) / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  return [
    ...problems,
    ...ticks.filter((m) => calendar.open[m] !== 1).map((m) => `a tick outside the window: ${at(m)}`),
    ...windows.flatMap((w) => weekHits(w.fields)).filter((m) => !ticks.includes(m)).map((m) => `no tick when the window opens: ${at(m)}`),
  ];
}

/** The Job's deadline against the run's worst case by its flags (docs/ci-and-fleets.md "How long a run can take"). */
function deadlineProblems(job: CronJob, timeoutMs: number, staged: StagedRequest): string[] {
  const deadlineMs = job.spec.jobTemplate.spec.activeDeadlineSeconds * 1000;
  const worst = worstCaseMs(timeoutMs, staged) + SETUP_MARGIN_MS;
  return deadlineMs >= worst ? [] : [`activeDeadlineSeconds ${deadlineMs / 1000} < worst case ${worst / 1000} s`];
}

describe('deploy/upgrade-cronjob.yaml', () => {
  const job = cronJob();
  const pod = job.spec.jobTemplate.spec.template.spec;
  const args = pod.containers[0]!.args;

  it("runs the issue's example: the newest AMIs a week old, one behind, canary first and gated, in the window only", async () => {
    expect(args.slice(0, 3)).toEqual(['upgrade', '--to', '1.30']);
    const { staged } = await parsedArgs(args);
    expect(args.join(' ')).toContain('--release latest~1 --min-age 7d');
    expect(staged.windows!.windows.map((w) => w.text)).toEqual(['0 2 * * mon-thu/3h']);
    expect(staged.canary).toEqual(['canary']);
    expect(staged.gates?.builtIn).toBe(true);
    // A Job counts only exit 0 as success; 7 would fail it (and be retried outside the window).
    expect(staged.windows!.exitCode).toBe(0);
    expect(args).toContain('--yes');
  });

  it('ticks only inside the window, and at its every start', async () => {
    const { staged } = await parsedArgs(args);
    expect(scheduleProblems(job, staged)).toEqual([]);
    expect(job.spec).toMatchObject({ concurrencyPolicy: 'Forbid', timeZone: 'Etc/UTC' });
    expect(job.spec.startingDeadlineSeconds).toBeLessThan(20 * 60); // shorter than the time between ticks
  });

  it('the schedule check can fail: a tick at the window close, a window start missed, another zone', async () => {
    const { staged } = await parsedArgs(args);
    const broken = (schedule: string, timeZone = 'Etc/UTC') =>
      scheduleProblems({ ...job, spec: { ...job.spec, schedule, timeZone } }, staged);
    expect(broken('*/20 2-5 * * 1-4')).toEqual(['Mon', 'Tue', 'Wed', 'Thu'].flatMap((d) =>
      ['00', '20', '40'].map((m) => `a tick outside the window: ${d} 05:${m}`),
    ));
    expect(broken('20 2-4 * * 1-4')).toEqual(['Mon', 'Tue', 'Wed', 'Thu'].map((d) => `no tick when the window opens: ${d} 02:00`));
    expect(broken('*/20 2-4 * * 1-4', 'Europe/Berlin')).toEqual(['timeZone Europe/Berlin: the windows are UTC']);
  });

  it("its Job outlives every run: activeDeadlineSeconds above the run's worst case, and --timeout sized to the window", async () => {
    const { timeoutMs, staged } = await parsedArgs(args);
    expect(deadlineProblems(job, timeoutMs, staged)).toEqual([]);
    expect(timeoutMs).toBe(staged.windows!.windows[0]!.durationMs);
    // The check can fail: a --timeout of 12h would not fit.
    const { timeoutMs: long } = await parsedArgs([...args, '--timeout', '12h']);
    expect(deadlineProblems(job, long, staged)).toEqual([`activeDeadlineSeconds 12600 < worst case ${(12 * 3600 + 15 * 60 + 20) + 600} s`]);
  });

  it('fails the Job at once only on the exit codes that need a human; an evicted pod is replaced, not counted', () => {
    const spec = job.spec.jobTemplate.spec;
    expect(spec.podFailurePolicy.rules).toEqual([
      { action: 'FailJob', onExitCodes: { containerName: 'karp-drift', operator: 'In', values: [2, 3, 4, 6] } },
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
    ]);
    expect(spec.backoffLimit).toBeGreaterThan(0); // 1 and 5 are worth another pod
    expect(pod.restartPolicy).toBe('Never'); // a podFailurePolicy needs it
  });

  it("runs as deploy/upgrade-job.yaml does: its ServiceAccount and binding, its pod security, node as PID 1", () => {
    const mine = manifests('deploy/upgrade-cronjob.yaml');
    const theirs = manifests('deploy/upgrade-job.yaml');
    const upgradeJob = theirs.find((m) => m.kind === 'Job') as unknown as { spec: { template: { spec: typeof pod } } };
    for (const kind of ['ServiceAccount', 'ClusterRoleBinding'])
      expect(mine.find((m) => m.kind === kind)).toEqual(theirs.find((m) => m.kind === kind));
    const theirPod = upgradeJob.spec.template.spec;
    expect(pod.serviceAccountName).toBe(theirPod.serviceAccountName);
    expect(pod.securityContext).toEqual(theirPod.securityContext);
    expect(pod.terminationGracePeriodSeconds).toBe(theirPod.terminationGracePeriodSeconds);
    expect(pod.containers[0]!.securityContext).toEqual(theirPod.containers[0]!.securityContext);
    expect(pod.containers[0]!.image).toBe(theirPod.containers[0]!.image);
    // args only: the image's ENTRYPOINT runs node itself, so SIGTERM reaches karp-drift (a shell would keep it).
    expect(pod.containers[0]!.command).toBeUndefined();
    expect(job.metadata.namespace).toBe('karp-drift');
  });
});
