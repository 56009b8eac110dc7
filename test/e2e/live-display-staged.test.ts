// The live display of a staged rollout in a real terminal (terminal.ts): soak and gate lines at 80 columns, a clock
// that goes on while the gates read the cluster, and a canary caught and rolled back.
import { describe, expect, it } from 'vitest';
import { scenario } from './cli-sandbox.js';
import { pty, why, inTerminal, liveLines, writtenRows } from './terminal.js';

describe.skipIf(pty === undefined)(`live display in a terminal${pty === undefined ? ` (skipped: ${why})` : ''}`, () => {
  it('a staged rollout at 80×24: the stage line in the frame, and log lines longer than the screen printed whole above it', async () => {
    const screen = await inTerminal(
      ['demo', '--scenario', 'staged', '--speed', '540', '--canary', 'canary', '--waves', '1,100%', '--soak', '2s'],
      80,
      24,
    );
    expect(screen.exitCode).toBe(0);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    // A soak line is wider than 80 columns: it takes two rows, broken at a space, and its second row (hung two
    // columns in) is its own end, not the end of the frame line it was written over.
    const soaks = screen.lines.flatMap((l, i) =>
      /^\[\d+s\] stage 1\/2 \(canary\) wave 1 done; soaking/.test(l) ? [`${l} ${(screen.lines[i + 1] ?? '').replace(/^ {2}/, '')}`] : [],
    );
    expect(screen.lines.filter((l) => l.length > 80)).toEqual([]);
    expect(soaks).toHaveLength(1);
    expect(soaks[0]).toMatch(/soaking \d+s until \S+Z before wave 2$/);
    expect(screen.lines.some((l) => /ETA|started/.test(l) && /soaking/.test(l))).toBe(false);
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });

  it('a staged rollout at 50×24: NodePool lines whole (a narrower bar), log lines wrapped at spaces above the frame', async () => {
    const screen = await inTerminal(
      ['demo', '--scenario', 'staged', '--speed', '540', '--canary', 'canary', '--waves', '1,100%', '--soak', '2s'],
      50,
      24,
    );
    expect(screen.exitCode).toBe(0);
    const live = liveLines(screen);
    // A 20-column bar left `3/3 replaced  do…` at 50 columns.
    for (const pool of ['batch', 'canary', 'general'])
      expect(live.some((l) => new RegExp(`^${pool} +\\[█{8,19}\\] +\\d+/\\d+ replaced +done$`).test(l)), live.join('\n')).toBe(true);
    expect(screen.wrapped.filter((w) => live.some((l) => w.endsWith(l) && l !== ''))).toEqual([]);
    // The soak line, 80-odd columns, in rows broken at spaces: the time whole on one of them.
    const at = screen.lines.findIndex((l) => /^\[\d+s\] stage 1\/2 \(canary\) wave 1 done;/.test(l));
    expect(at, screen.lines.join('\n')).toBeGreaterThanOrEqual(0);
    const rows = screen.lines.slice(at, at + 3);
    expect(rows.every((r) => r.length <= 50)).toBe(true);
    expect(rows.join(' ').replace(/ +/g, ' ')).toMatch(/soaking \d+s until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ before wave 2/);
  });

  it('a gated staged rollout at 80×24: the stage line says what the gates wait on, cut to the width', async () => {
    const screen = await inTerminal(
      ['demo', '--scenario', 'staged', '--speed', '540', '--canary', 'canary', '--waves', '1,100%', '--gate-cmd', 'sleep 2; echo ok'],
      80,
      24,
    );
    expect(screen.exitCode).toBe(0);
    // Drawn over since, so read from what was written: the frame's stage line while the command ran.
    expect(screen.raw).toMatch(/Stage 1\/2 canary, wave 1\/2: gates at wave end: --gate-cmd for \d+s/);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes'))).toHaveLength(1);
    const live = liveLines(screen);
    expect(screen.wrapped.filter((w) => live.some((l) => w.endsWith(l) && l !== ''))).toEqual([]);
    expect(screen.lines.some((l) => /health gates passed at the end of stage 1\/2 \(canary\) wave 1/.test(l))).toBe(
      true,
    );
    expect(screen.lines.some((l) => l.startsWith('Rollout complete'))).toBe(true);
  });

  // Issue 23: on `large` the gates read 50,000 pods at each checkpoint (10–50 s), and the frame stood still meanwhile,
  // its clock stopped. Here the API server answers every pod list 4 s late: the checkpoint after the canary's first
  // wave takes at least that long, and the frame drawn meanwhile must show the elapsed time going on, and follow a
  // window narrowed to 60 columns as the checkpoint begins.
  it('the frame keeps its clock and follows a resize while the gates read the cluster (pod lists 4 s late)', async () => {
    const sandbox = await scenario('staged');
    sandbox.kube.faults.delay(4_000, { verbs: ['list'], resources: ['pods'] });
    const gating = /Stage 1\/2 canary, wave 1\/2: gates at wave end/;
    // The first checkpoint passed (at 60 columns the rest of that log line is on the next row).
    const passed = /health gates passed at the end of stage 1\/2/;
    const screen = await inTerminal(
      ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,100%', '--yes'],
      80,
      24,
      { columns: 60, rows: 24 },
      { env: sandbox.env, resizeAt: gating, interruptAt: passed },
    );
    const rows = writtenRows(screen);
    const from = rows.findIndex((r) => gating.test(r));
    const to = rows.findIndex((r) => passed.test(r));
    expect(from, rows.join('\n')).toBeGreaterThan(0);
    expect(to).toBeGreaterThan(from);
    const clocks = new Set(
      rows.slice(from - 1, to).flatMap((r) => /^Drift to Kubernetes 1\.30: (\S+) elapsed/.exec(r)?.[1] ?? []),
    );
    // At least 4 s of checkpoint: the clock shows at least three different times (once a second, with room for a
    // loaded machine); the frame that stood still showed one.
    expect([...clocks].length, [...clocks].join(', ')).toBeGreaterThanOrEqual(3);
    // Drawn again at the new width before the gates are done: the stage line cut to 60 columns.
    const narrowed = rows.slice(from, to).filter((r) => r.startsWith('Stage 1/2 canary') && r.endsWith('…'));
    expect(narrowed.length, rows.slice(from, to).join('\n')).toBeGreaterThan(0);
    expect(narrowed.every((r) => r.length <= 60)).toBe(true);
  });

  it('demo --scenario bad-ami at 80×24: the first node per AMI caught, its evidence above the frame, rolled back (exit 6)', async () => {
    const screen = await inTerminal(['demo', '--scenario', 'bad-ami'], 80, 24);
    expect(screen.exitCode).toBe(6);
    const text = screen.lines.join('\n');
    expect(text).toMatch(/Health gate failed (while the rollout runs|at the end of stage 1\/1 \(rollout\) wave 1)/);
    expect(text).toMatch(/POD-FAILING pod \S+ on replaced node/);
    expect(text).toContain('--on-failure rollback: restoring ec2nodeclass/');
    // The rollback's own follow draws a second frame, below the first: each drawn once.
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes 1.30'))).toHaveLength(1);
    expect(screen.lines.filter((l) => l.startsWith('Drift to Kubernetes 1.29'))).toHaveLength(1);
    expect(screen.lines.join('').replace(/\s+/g, ' ')).toMatch(/rolled back: .* back on the previous AMIs/);
  });
});
