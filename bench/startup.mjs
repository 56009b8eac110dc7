// Start-up (issue "Every command close to its floor"): each figure a ratio of medians measured in one run, on
// every Node given (this one, and Node 24 when it is installed):
// - `karp-drift --help` against `node -e 0`;
// - `status` and `plan` on the `default` sandbox against `kubectl get nodeclaims` on the same sandbox (plan also asks
//   SSM and EC2). The sandbox runs in this process on a manual clock: nothing changes between runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../dist/sandbox/karpenter/clock.js';
import { startSandbox } from '../dist/sandbox/sandbox.js';
import { alternate } from './timing.mjs';

// The bin, as `karp-drift` runs it (package.json "bin"): help from dist/help.cjs, the commands through dist/main.js.
const BIN = fileURLToPath(new URL('../dist/bin.cjs', import.meta.url));

function hasKubectl() {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `node` is a path to a node binary; `label` names it in the table (e.g. "Node 20"). */
export async function startup(node, label, runs) {
  const rows = [];
  const help = await alternate(
    [
      { name: 'node', command: node, args: ['-e', '0'] },
      { name: 'help', command: node, args: [BIN, '--help'] },
    ],
    runs,
  );
  rows.push({
    figure: `\`karp-drift --help\` vs \`node -e 0\` (${label})`,
    result: `${ms(help.help.ms)} vs ${ms(help.node.ms)}`,
    ratio: help.help.ms / help.node.ms,
    goal: 1.1,
  });

  if (!hasKubectl()) {
    rows.push({
      figure: `\`status\`, \`plan\` vs \`kubectl get nodeclaims\` (${label})`,
      result: 'kubectl not found: not measured',
      goal: 2,
    });
    return rows;
  }
  const sandbox = await startSandbox({ scenario: 'default', manualClock: new ManualClock(new Date()) });
  const home = mkdtempSync(join(tmpdir(), 'karp-drift-bench-home-')); // kubectl's discovery cache, warmed by the first round
  try {
    const env = { PATH: process.env.PATH, HOME: home, ...sandbox.env };
    const r = await alternate(
      [
        { name: 'kubectl', command: 'kubectl', args: ['get', 'nodeclaims'], env },
        { name: 'status', command: node, args: [BIN, 'status'], env },
        { name: 'plan', command: node, args: [BIN, 'plan', '--to', '1.30'], env },
      ],
      runs,
    );
    rows.push({
      figure: `\`status\` vs \`kubectl get nodeclaims\`, \`default\` sandbox (${label})`,
      result: `${ms(r.status.ms)} vs ${ms(r.kubectl.ms)}`,
      ratio: r.status.ms / r.kubectl.ms,
      goal: 2,
    });
    rows.push({
      figure: `\`plan\` vs \`kubectl get nodeclaims\`, \`default\` sandbox (${label})`,
      result: `${ms(r.plan.ms)} vs ${ms(r.kubectl.ms)}`,
      ratio: r.plan.ms / r.kubectl.ms,
      goal: 3,
    });
  } finally {
    await sandbox.stop();
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}

const ms = (x) => `${x.toFixed(0)} ms`;
