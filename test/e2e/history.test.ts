// Run history end to end (issue 37): the built CLI's runs leave their records in the sandbox's API server, and
// `karp-drift history` reads them back as the API has them. On the `staged` sandbox: a staged, gated, windowed run
// killed with kill -9 (its record says it did not finish), the same command resuming it to the end (its page drawn by
// `--report`, its step summary's Mermaid chart read by Mermaid), a rollback, a pause and a resume; on the `bad-ami` sandbox, a run a
// health gate halts. The page is opened in headless Chromium (Debian's `chromium`) where it is installed.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunSummary, RunTimeline } from '../../src/apis/run-record.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { karpDrift, scenario } from './cli-sandbox.js';
import { follow } from './staged.js';
import { badAmi } from './gates.js';

type Listed = RunSummary & { liveness: string; timeline?: RunTimeline };
const CHROMIUM = '/usr/bin/chromium';
/** A daily window open now, for two hours from the top of this hour (Karpenter's budget form). */
const openWindow = () => `0 ${new Date().getUTCHours()} * * */2h`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The records as the API server holds them: summaries and timelines, decoded as `history` decodes them. */
function records(sandbox: Sandbox): Array<{ summary: RunSummary; timeline: RunTimeline }> {
  return sandbox.kube.store
    .list('configmaps', 'kube-system')
    .filter((cm) => cm.metadata.labels?.['karp-drift.io/record'] === 'run')
    .map((cm) => {
      const { data, binaryData } = cm as KubeObject & { data: Record<string, string>; binaryData: Record<string, string> };
      return {
        summary: JSON.parse(data['run.json']!) as RunSummary,
        timeline: JSON.parse(gunzipSync(Buffer.from(binaryData['timeline.json.gz']!, 'base64')).toString('utf8')) as RunTimeline,
      };
    });
}

/**
 * Every NodeClaim the API server stores from now until `stop()`, per NodePool: the run's replacements, those that
 * failed and were deleted, or were consolidated away, included.
 */
function claimsCreated(sandbox: Sandbox): { stop(): Record<string, string[]> } {
  const out: Record<string, string[]> = {};
  const unsubscribe = sandbox.kube.store.objects.subscribe((change) => {
    if (change.type !== 'ADDED' || change.groupResource !== 'nodeclaims.karpenter.sh') return;
    (out[change.object.metadata.labels?.['karpenter.sh/nodepool'] ?? ''] ??= []).push(change.object.metadata.name ?? '');
  });
  return {
    stop() {
      unsubscribe();
      for (const names of Object.values(out)) names.sort();
      return out;
    },
  };
}
/** The record's replacements, per NodePool, as names. */
const recorded = (t: RunTimeline) => Object.fromEntries(Object.entries(t.replacements).map(([p, c]) => [p, [...c.names].sort()]));

async function history(sandbox: Sandbox, args: string[] = []): Promise<{ runs: Listed[] } & Listed> {
  const run = await karpDrift(sandbox, ['history', ...args, '-o', 'json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { runs: Listed[] } & Listed;
}

/** What the staged runs share: the report of the run that finished, for the Chromium test below. */
const shared: { report?: string; counts?: Record<string, number> } = {};

describe('karp-drift history on the staged sandbox', () => {
  it('a run killed with kill -9, the run that finished it, a rollback, a pause, a resume: listed newest first, each as the API has it', async () => {
    const sandbox = await scenario('staged', 300);
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-history-'));
    // Windows are budgets: batch, whose budgets Argo CD owns, is held with a budget all the same.
    const args = ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,10%,100%', '--soak', '2s', '--window', openWindow(), '--hold-with', 'budget', '--force-conflicts', '--yes'];

    // 1. Killed once its record holds the first soak: nothing of it runs again.
    const killed = follow(sandbox, [...args, '-o', 'json']);
    let ended = false;
    void killed.exited.then(() => (ended = true));
    for (let waited = 0; !records(sandbox).some((r) => r.timeline.events.some((e) => e.type === 'soak')); waited += 100) {
      if (waited > 60_000 || ended) throw new Error(`no record with a soak; stderr:\n${killed.stderr()}`);
      await sleep(100);
    }
    killed.child.kill('SIGKILL');
    await killed.exited;
    const alive = await history(sandbox);
    expect(alive.runs).toHaveLength(1);
    // Its Lease was renewed less than 30 s ago: by all a reader can tell, it still runs.
    expect(alive.runs[0]).toMatchObject({ command: 'upgrade', result: 'running', exitCode: null, endedAt: null, liveness: 'running' });
    // The command as typed, quoted for a shell.
    expect(alive.runs[0]!.commandLine).toBe([...args, '-o', 'json'].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a}'`)).join(' '));
    // The Lease expires 30 s after its last renewal; removed here as that expiry would, the lock is free and the
    // record says the run did not finish.
    sandbox.kube.store.delete('leases.coordination.k8s.io', 'karp-drift', 'kube-system');
    const gone = await karpDrift(sandbox, ['history']);
    expect(gone.stdout).toMatch(/upgrade --to 1\.30 .* did not finish \(last written \d{4}-\d\d-\d\dT[\d:]+Z\)/);
    const killedId = alive.runs[0]!.runId;
    const killedRecord = await history(sandbox, [killedId.slice(0, 8)]);
    expect(killedRecord.timeline!.events.map((e) => e.type)).toEqual(expect.arrayContaining(['window', 'stage', 'wave', 'soak']));

    // 2. The same command finishes it, drawing its page and its step summary.
    const report = join(dir, 'run.html');
    const summary = join(dir, 'summary.md');
    const from = sandbox.kube.requests.length;
    const finished = await karpDrift(sandbox, [...args, '--report', report, '--summary-file', summary, '-o', 'json'], 120_000);
    expect(finished.code, finished.stderr).toBe(0);
    // Bounded writes: its record created once, then written at most once every 5 s and once at the end.
    const recordWrites = sandbox.kube.requests.slice(from).filter((r) => r.resource === 'configmaps' && r.verb !== 'get');
    expect(recordWrites.filter((r) => r.verb === 'create')).toHaveLength(1);
    expect(recordWrites.length).toBeLessThanOrEqual(2 + Math.ceil((finished.events.at(-1)!.durationSeconds as number) / 5) + 1);
    const done = finished.events.at(-1)!;
    const second = (await history(sandbox)).runs[0]!;
    expect(second).toMatchObject({ result: 'succeeded', exitCode: 0, liveness: 'ended', target: '1.30', user: { name: 'karp-drift-sandbox-admin', source: 'SelfSubjectReview' } });
    expect(second.nodesReplaced).toBe((done.nodePools as Array<{ replaced: number }>).reduce((n, p) => n + p.replaced, 0));
    // Each replacement as the API has it: its NodeClaim, created when the record says, Initialized when it says.
    const full = await history(sandbox, [second.runId]);
    const started = Date.parse(full.startedAt);
    // Whole seconds from the start, as the record keeps them (+ 0: JSON has no -0).
    const since = (iso: string) => Math.round((Date.parse(iso) - started) / 1000) + 0;
    for (const [pool, c] of Object.entries(full.timeline!.replacements)) {
      c.names.forEach((name, i) => {
        const claim = sandbox.kube.store.get('nodeclaims.karpenter.sh', name)!;
        expect(claim.metadata.labels?.['karpenter.sh/nodepool'], name).toBe(pool);
        expect(since(claim.metadata.creationTimestamp!), name).toBe(c.start[i]);
        const initialized = (claim.status as { conditions: Array<{ type: string; lastTransitionTime: string }> }).conditions.find((k) => k.type === 'Initialized')!;
        expect(since(initialized.lastTransitionTime), name).toBe(c.end[i]);
      });
    }
    shared.report = report;
    shared.counts = Object.fromEntries(Object.entries(full.timeline!.replacements).map(([p, c]) => [p, c.names.length]));
    expect(readFileSync(summary, 'utf8')).toMatch(/#### Timeline\n\n```mermaid\ngantt\n/);
    await expectMermaidReads(readFileSync(summary, 'utf8'), full.timeline!.events.filter((e) => e.type === 'wave').length);

    // 3. A rollback: its replacements are exactly the NodeClaims the API has that it did not before.
    const created = claimsCreated(sandbox);
    const rollback = await karpDrift(sandbox, ['rollback', '--yes'], 120_000);
    const createdByRollback = created.stop();
    expect(rollback.code, rollback.stderr).toBe(0);
    // 4. A pause and a resume: each a record of what it held and released.
    expect((await karpDrift(sandbox, ['pause', '--nodepool', 'general'])).code).toBe(0);
    expect((await karpDrift(sandbox, ['resume'])).code).toBe(0);
    const list = await history(sandbox);
    const holds = records(sandbox).filter((r) => ['pause', 'resume'].includes(r.summary.command));
    expect(holds.map((r) => [r.summary.command, r.timeline.events.map((e) => (e.type === 'holds' ? `${e.action} ${e.nodePools.map((p) => p.nodePool).join()}` : e.type))]).sort()).toEqual([
      ['pause', ['paused general']],
      ['resume', ['resumed general']],
    ]);
    expect(list.runs.map((r) => [r.command, r.result, r.liveness])).toEqual([
      ['resume', 'succeeded', 'ended'],
      ['pause', 'succeeded', 'ended'],
      ['rollback', 'succeeded', 'ended'],
      ['upgrade', 'succeeded', 'ended'],
      ['upgrade', 'running', 'did-not-finish'],
    ]);
    const back = records(sandbox).find((r) => r.summary.command === 'rollback')!;
    expect(recorded(back.timeline)).toEqual(createdByRollback);
    // The AMIs it took the classes back from are the ones the upgrade pinned.
    expect(back.summary.amis.map((a) => [a.nodeClass, a.before])).toEqual(second.amis.map((a) => [a.nodeClass, a.after]));
  }, 240_000);

  it('the page of the finished run renders in headless Chromium, with a bar for every replacement of each NodePool', async (ctx) => {
    if (!existsSync(CHROMIUM)) ctx.skip(`Debian's chromium is not installed (${CHROMIUM}): apt-get install -y chromium, as .ci/run does, to draw the page`);
    expect(shared.report, 'the test above wrote it').toBeDefined();
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      // As root and on a closed network (the machine's notes): no sandbox, no GPU, no background connections.
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const problems: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
      page.on('pageerror', (e) => void problems.push(String(e)));
      page.on('request', (r) => void (!r.url().startsWith('file:') && problems.push(`fetched ${r.url()}`)));
      await page.goto(`file://${shared.report}`);
      await page.screenshot({ path: join(tmpdir(), `karp-drift-history-${process.pid}.png`) });
      const bars = await page.$$eval('rect.replacement', (rects) =>
        rects.reduce<Record<string, number>>((m, r) => {
          const pool = r.getAttribute('data-nodepool') ?? '';
          m[pool] = (m[pool] ?? 0) + Number(r.getAttribute('data-count'));
          return m;
        }, {}),
      );
      expect(problems).toEqual([]);
      expect(bars).toEqual(shared.counts);
      const lanes = await Promise.all((await page.$$('.lane')).map((lane) => lane.getAttribute('data-nodepool')));
      expect(lanes).toEqual(['canary', 'batch', 'general']);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('karp-drift history on the bad-ami sandbox', () => {
  it('a run a health gate halted: its result, the gate with its evidence, its replacements as the API has them', async () => {
    const sandbox = await badAmi();
    // The sandbox stamps its NodeClaims with the second it started in; a run that began in that same second would count
    // them as its own (the API's timestamps have whole seconds: rollout/replacements.ts), which no cluster's old nodes are.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 50));
    const created = claimsCreated(sandbox);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--canary', 'canary', '--yes']);
    const createdByRun = created.stop();
    expect(run.code, run.stderr).toBe(6);
    const [halted] = (await history(sandbox)).runs;
    expect(halted).toMatchObject({ command: 'upgrade', result: 'halted', exitCode: 6, liveness: 'ended' });
    expect(halted!.message).toContain('halted by a health gate: POD-FAILING');
    const full = await history(sandbox, [halted!.runId.slice(0, 8)]);
    const gate = full.timeline!.events.find((e) => e.type === 'gate' && e.result === 'failed');
    expect(gate).toMatchObject({ gate: 'health', findings: expect.arrayContaining([expect.objectContaining({ code: 'POD-FAILING', nodePool: 'canary' })]) });
    expect(JSON.stringify(gate)).toContain('CrashLoopBackOff');
    expect(full.timeline!.events.at(-1)).toMatchObject({ type: 'done', result: 'halted', cause: 'gate', paused: ['canary', 'general'] });
    expect(recorded(full.timeline!)).toEqual(createdByRun);
    const text = await karpDrift(sandbox, ['history', halted!.runId]);
    expect(text.stdout).toMatch(/Result: +halted \(exit 6\): halted by a health gate: POD-FAILING/);
    expect(text.stdout).toMatch(/health gate failed at \S+(?: \(stage 1[^)]*\))?: failure 1 of 1\n +POD-FAILING/);
  }, 120_000);
});

/** Mermaid reads the summary's chart: it parses, and its gantt has a task for each wave the run opened. */
async function expectMermaidReads(markdown: string, waves: number): Promise<void> {
  const block = /```mermaid\n([\s\S]*?)```/.exec(markdown)![1]!;
  const { Window } = await import('happy-dom');
  const window = new Window();
  Object.assign(globalThis, { window, document: window.document });
  try {
    const mermaid = (await import('mermaid')).default;
    await mermaid.parse(block);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(block);
    const tasks = (diagram.db as unknown as { getTasks(): Array<{ task: string }> }).getTasks();
    expect(tasks.filter((t) => t.task.startsWith('wave '))).toHaveLength(waves);
  } finally {
    await window.happyDOM.close();
  }
}

describe('a run record whose write was given up on but landed', () => {
  it('the next write takes the version of its own record and the run ends with its result, no warning', async () => {
    // A write the run gave up on (its 5 s passed, or its connection was cut) can still land: the record is then the
    // run's own, at a version the run does not know. The sandbox plays it before the run's first update: the record
    // written again as it is, so the update's version is one behind. Seen at the end of an upgrade on `large`: "could
    // not write this run's record … 409 … the object has been modified".
    const sandbox = await scenario('default');
    const store = sandbox.kube.store;
    let landed = false;
    sandbox.kube.faults.beforeNext({ verbs: ['update'], resources: ['configmaps'] }, () => {
      const [record] = store
        .list('configmaps', 'kube-system')
        .filter((cm) => cm.metadata.labels?.['karp-drift.io/record'] === 'run') as Array<KubeObject & { data: Record<string, string> }>;
      // As the late write would: the same record, written a moment later (an unchanged write keeps its version).
      const summary = JSON.parse(record!.data['run.json']!) as RunSummary;
      const later = { ...summary, updatedAt: new Date(Date.parse(summary.updatedAt) + 1000).toISOString() };
      store.update('configmaps', { ...record!, data: { ...record!.data, 'run.json': JSON.stringify(later) } });
      landed = true;
    });
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(landed).toBe(true);
    expect(run.stderr).not.toMatch(/run's record/);
    const updates = sandbox.kube.requests.filter((r) => r.verb === 'update' && r.resource === 'configmaps').map((r) => r.code);
    expect(updates[0]).toBe(409); // the run's version was one behind its own record
    expect(updates.slice(1).every((c) => c === 200)).toBe(true);
    const [record] = records(sandbox);
    expect(record!.summary).toMatchObject({ result: 'succeeded', exitCode: 0 });
  }, 120_000);
});
