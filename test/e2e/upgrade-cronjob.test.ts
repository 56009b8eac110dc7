// The CronJob's command (deploy/upgrade-cronjob.yaml) as its ticks run it: the built CLI with the container's exact
// args against the sandbox, only the window replaced by one closed now or one open now. It proves the release policy
// together with the window (issue 26: `--release latest~1` and `--min-age 7d` for AL2023, Bottlerocket and a GPU
// variant): the cluster runs all three, and the newest 1.30 release of each family was registered in this region three
// days ago (EC2 CreationDate; the catalog's releases are otherwise weeks old), so --min-age 7d passes it over and
// latest~1 counts back from the one before: the third newest. Outside the window a tick ends at once and exits 0 with
// --window-exit-code 0 (7 without); inside, the chosen AMIs are pinned and the canary drifts, and the pod's SIGTERM
// leaves the rollout held.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { seriesReleases } from '../../src/sandbox/aws/lookup.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import type { AmiFamily, Arch, Variant } from '../../src/ami/families.js';
import { cronJobArgs, withWindow } from '../deploy/upgrade-cronjob.js';
import { karpDrift } from './cli-sandbox.js';
import { budgetsOf, follow } from './staged.js';

const DAY_MS = 86_400_000;
const NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

/** `staged`, with a GPU NodePool on a class of its own, and no NodePool whose budgets Argo CD owns (windows are budgets). */
async function cluster(): Promise<Sandbox> {
  const base = loadScenario('staged');
  const [canary] = base.nodePools;
  const sandbox = await startSandbox({
    scenario: {
      ...base,
      nodeClasses: [...base.nodeClasses, { ...base.nodeClasses[0]!, name: 'gpu' }],
      nodePools: [
        ...base.nodePools.map((p) => ({ ...p, fieldManager: 'kubectl' as const })),
        { ...canary!, name: 'gpu', nodeClass: 'gpu', nodes: 2, arch: ['amd64'], gpu: true, fieldManager: 'kubectl' },
      ],
    },
    speed: 300,
  });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/** The series each class's nodes run on 1.30: AL2023 on amd64 and arm64, its nvidia variant, Bottlerocket on arm64. */
const SERIES: Array<{ nodeClass: string; family: AmiFamily; arch: Arch; variant: Variant }> = [
  { nodeClass: 'default', family: 'al2023', arch: 'amd64', variant: 'standard' },
  { nodeClass: 'default', family: 'al2023', arch: 'arm64', variant: 'standard' },
  { nodeClass: 'gpu', family: 'al2023', arch: 'amd64', variant: 'nvidia' },
  { nodeClass: 'bottlerocket', family: 'bottlerocket', arch: 'arm64', variant: 'standard' },
];

/**
 * Registers each family's newest 1.30 release here three days ago, and says what the policy must choose: per series,
 * the newest (too young), the one before it (the newest a week old) and the one before that (latest~1 of those).
 */
function newestRegisteredDaysAgo(sandbox: Sandbox) {
  const { catalog } = sandbox.aws;
  const series = SERIES.map((s) => ({ ...s, releases: seriesReleases(catalog, { ...s, kubernetesVersion: '1.30' }) }));
  const young = new Date(Date.now() - 3 * DAY_MS).toISOString();
  for (const s of series) {
    const newest = s.releases.at(-1)!;
    for (const r of catalog.releases.filter((c) => c.family === s.family && c.kubernetesVersion === '1.30' && c.release === newest.release))
      catalog.images.set(r.imageId, { ...catalog.images.get(r.imageId)!, creationDate: young });
  }
  return series.map((s) => ({ ...s, newest: s.releases.at(-1)!, chosen: s.releases.at(-3)! }));
}

const termsOf = (sandbox: Sandbox, nodeClass: string) =>
  (sandbox.kube.store.get(NODECLASSES, nodeClass)!.spec as { amiSelectorTerms: Array<{ id?: string }> }).amiSelectorTerms;

/** A daily window, in Karpenter's form, that opens `fromNowHours` hours from the current one (0: open now, for 2 h). */
function windowAt(fromNowHours: number): string {
  return `0 ${(new Date().getUTCHours() + fromNowHours) % 24} * * */2h`;
}

describe("the CronJob's command, tick by tick", () => {
  const args = cronJobArgs();

  it('outside the window: exit 0 with --window-exit-code 0 (7 without), nothing applied, the policy chose the third newest', async () => {
    const sandbox = await cluster();
    const expected = newestRegisteredDaysAgo(sandbox);
    const terms = () => ['default', 'gpu', 'bottlerocket'].map((c) => termsOf(sandbox, c));
    const before = terms();
    const closed = withWindow(args, windowAt(12));

    const seven = await karpDrift(sandbox, closed.filter((a, i) => a !== '--window-exit-code' && closed[i - 1] !== '--window-exit-code'));
    expect(seven.code, seven.stderr).toBe(ExitCode.PausedByWindow);

    const file = join(mkdtempSync(join(tmpdir(), 'karp-drift-cron-')), 'result.json');
    const tick = await karpDrift(sandbox, [...closed, '--result-file', file]);
    expect(tick.code, tick.stderr).toBe(0);
    for (const run of [seven, tick]) {
      expect(run.stderr).toMatch(/^paused by the window, next window opens \w{3} \d\d:00 UTC \(in [0-9hm]+\): nothing was applied/m);
      expect(run.stderr).not.toContain('error:');
      expect(run.events.find((e) => e.type === 'window')).toMatchObject({ event: 'waiting', open: false });
    }
    expect(tick.stderr).toMatch(/next: run the same command again inside a window .*--release latest~1 --min-age 7d .*--window-exit-code 0/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ exitCode: 0, result: 'paused', error: { exitCode: 7 } });

    // The release policy, as the run recorded it and as it resolved each series.
    const resolved = tick.events.find((e) => e.type === 'resolved') as unknown as {
      source: { policy: { release: string; minAge: string; families: Array<{ family: string; release: string; newest: { release: string } }> } };
      amis: Array<{ family: string; arch: string; variant: string; release: string; id: string }>;
    };
    expect(resolved.source.policy).toMatchObject({ release: 'latest~1', minAge: '7d' });
    const byFamily = (f: AmiFamily) => expected.find((s) => s.family === f)!;
    expect(resolved.source.policy.families.map((f) => [f.family, f.release, f.newest.release]).sort()).toEqual(
      (['al2023', 'bottlerocket'] as const).map((f) => [f, byFamily(f).chosen.release, byFamily(f).newest.release]),
    );
    for (const s of expected) {
      expect(s.releases.length).toBeGreaterThanOrEqual(3);
      expect(resolved.amis.find((a) => a.family === s.family && a.arch === s.arch && a.variant === s.variant)).toMatchObject({
        release: s.chosen.release,
        id: s.chosen.imageId,
      });
    }
    // Outside the window nothing was applied: the holds and the windows' budgets went on, the AMIs stayed.
    expect(terms()).toEqual(before);
    for (const pool of ['canary', 'general', 'batch', 'gpu'])
      expect((budgetsOf(sandbox)[pool] as { hold?: string }).hold).toBeDefined();
    expect(sandbox.simulator.disruptions.entries()).toEqual([]);
  }, 120_000);

  it("inside the window: the chosen AMIs pinned, the canary drifting; the pod's SIGTERM leaves the rollout held (exit 130)", async () => {
    const sandbox = await cluster();
    const expected = newestRegisteredDaysAgo(sandbox);
    const run = follow(sandbox, withWindow(args, windowAt(0)));
    await run.until((e) => e.type === 'window' && e.event === 'opened');
    await run.until((e) => e.type === 'wave' && e.stage === 1);
    for (let waited = 0; sandbox.simulator.disruptions.entries().length === 0; waited += 50) {
      if (waited > 30_000) throw new Error(`no replacement started inside the window; stderr:\n${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    run.child.kill('SIGTERM'); // what the kubelet sends a pod that is evicted, or deleted at activeDeadlineSeconds
    expect(await run.exited, run.stderr()).toBe(ExitCode.Interrupted);
    // stderr says why when it is not so (once, with eight files at a time, the run ended 130 with no `done` event).
    expect(run.events.at(-1), run.stderr()).toMatchObject({ type: 'done', result: 'paused', cause: 'interrupted' });

    for (const nodeClass of ['default', 'gpu', 'bottlerocket']) {
      const ids = termsOf(sandbox, nodeClass).map((t) => t.id).sort();
      expect(ids, nodeClass).toEqual(expected.filter((s) => s.nodeClass === nodeClass).map((s) => s.chosen.imageId).sort());
    }
    // Held: every NodePool at 0 for Drifted, beside the windows' budgets, for the next tick to go on from.
    for (const pool of ['canary', 'general', 'batch', 'gpu']) {
      const { budgets, hold } = budgetsOf(sandbox)[pool] as { budgets: Array<{ nodes: string; reasons?: string[] }>; hold?: string };
      expect(hold, pool).toBeDefined();
      expect(budgets.at(-1), pool).toEqual({ nodes: '0', reasons: ['Drifted'] });
    }
  }, 120_000);
});
