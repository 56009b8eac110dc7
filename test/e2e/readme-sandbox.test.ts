// Every example of the README, the manual and `sandbox --help` that starts a sandbox works when pasted as written (issue 25:
// `eval "$(karp-drift sandbox … &)"` never returned, and `sandbox --env-out f &` then `. f` raced the file): run in
// bash as a script (`set -e`, every command must succeed) and typed into an interactive bash in a terminal. Only
// `/tmp/` is moved into the test's own folder, so runs in parallel do not share files.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { helpExamples, readmeExamples, type ShellExample } from './readme-examples.js';
import { docFiles, ROOT } from '../docs/markdown.js';
import { bashIn, interactiveBashIn, stopSandboxesUnder, tmpOf } from './sandbox-shell.js';

// Every page a reader may copy from; an example printed twice (the README's and a page's) is run once. The generated
// reference prints each command's --help examples, which run below as `sandbox --help`'s.
const DOCS = await Promise.all(docFiles().filter((f) => !f.startsWith('docs/reference/')).map(async (file) => ({ file, text: await readFile(join(ROOT, file), 'utf8') })));
const docExamples = DOCS.flatMap(({ file, text }) => readmeExamples(text, file)).filter(
  (e, i, all) => all.findIndex((o) => o.lines.join('\n') === e.lines.join('\n')) === i,
);
const BIN = new URL('../../dist/bin.cjs', import.meta.url).pathname;
const HELP = execFileSync(process.execPath, [BIN, 'sandbox', '--help'], { encoding: 'utf8' });
const SERVING = 'Serving until interrupted (Ctrl-C).';
const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const examples = [...docExamples, ...helpExamples(HELP)];
const runnable = examples.filter((e) => kubectl || !e.lines.some((l) => /(^|\s)kubectl\s/.test(l)));
if (runnable.length < examples.length) console.warn(`SKIPPED ${examples.length - runnable.length} examples that use kubectl: it is not on PATH`);

async function workDir(onTestFinished: TestContext['onTestFinished']): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-examples-'));
  onTestFinished(async () => {
    await stopSandboxesUnder(dir);
    await Promise.all([rm(dir, { recursive: true, force: true }), rm(tmpOf(dir), { recursive: true, force: true })]);
  });
  return dir;
}

const inDir = (example: ShellExample, dir: string) => example.lines.map((l) => l.replaceAll('/tmp/', `${dir}/`));
/**
 * The staged rollout of the worked example (docs/staged-rollouts.md) takes about 70 s, the rest up to 30 s each: mostly waiting on
 * the sandboxes' simulated clocks, so the runs go side by side.
 */
const TIMEOUT_MS = 240_000;

describe('the sandbox examples', () => {
  it('are found: the quick start, the staged walkthrough, the sandbox page, the GitOps walkthrough, the promotion walkthrough and --help', () => {
    expect(docExamples.map((e) => [e.where.replace(/:\d+$/, ''), e.lines[0]])).toEqual([
      ['README.md', 'eval "$(karp-drift sandbox --detach)"   # a simulated EKS 1.30 cluster with Karpenter; returns once it serves'],
      ['docs/gitops.md', 'eval "$(karp-drift sandbox --detach --scenario gitops-owned --gitops-dir /tmp/fleet)"   # seeds /tmp/fleet, syncs it'],
      ['docs/promotion.md', 'karp-drift sandbox --detach --context staging --kubeconfig /tmp/staging.yaml > /tmp/staging.env'],
      ['docs/sandbox.md', 'eval "$(karp-drift sandbox --detach --scenario pdb-blocked)"'],
      ['docs/staged-rollouts.md', 'eval "$(karp-drift sandbox --detach --scenario staged)"'],
    ]);
    expect(helpExamples(HELP).map((e) => [e.lines[0], e.foreground])).toEqual([
      ['karp-drift sandbox --detach --env-out /tmp/sandbox.env', false],
      ['karp-drift sandbox --scenario pdb-blocked --speed 120', true],
      ['karp-drift sandbox --detach --context staging --kubeconfig /tmp/staging.yaml > /tmp/staging.env', false],
    ]);
  });

  it.concurrent.for(runnable.map((e) => [e.where, e] as const))('%s: as a script', { timeout: TIMEOUT_MS + 10_000 }, async ([, example], { expect, onTestFinished }) => {
    const dir = await workDir(onTestFinished);
    const run = await bashIn(dir, ['set -e', ...inDir(example, dir)], TIMEOUT_MS, (shell, out) => {
      if (!example.foreground) return;
      const timer = setInterval(() => {
        if (!out().includes(SERVING)) return;
        clearInterval(timer);
        shell.kill(); // Ctrl-C: SIGINT to the foreground process group
      }, 50);
    });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toMatch(/^sandbox "[\w-]+": EKS cluster sandbox/m);
  });

  it.concurrent.for(runnable.map((e) => [e.where, e] as const))('%s: typed into an interactive bash', { timeout: TIMEOUT_MS + 10_000 }, async ([, example], { expect, onTestFinished }) => {
    const dir = await workDir(onTestFinished);
    const { output, failed } = await interactiveBashIn(dir, inDir(example, dir), example.foreground ? SERVING : undefined, TIMEOUT_MS);
    expect(failed, output).toEqual([]);
    expect(output).toMatch(/sandbox "[\w-]+": EKS cluster sandbox/);
  });
});
