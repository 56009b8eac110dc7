// Benchmarks of the main job against the sandbox (not tests; numbers go into the README):
// - `plan` and `status` on the large scenario (5,000 nodes, 50,000 pods): wall time against the minimal reads, and peak RSS;
// - API requests a complete rollout costs, on 12 and on 60 nodes: it must not grow with the number of nodes;
// - how soon after the last old NodeClaim is gone the CLI reports done.
import { spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { URL } from 'node:url';
import { ManualClock } from '../dist/sandbox/karpenter/clock.js';
import { startSandbox } from '../dist/sandbox/sandbox.js';
import { parseScenario } from '../dist/sandbox/scenarios/schema.js';
import { alternate, timed } from './timing.mjs';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const MINIMAL_READS = fileURLToPath(new URL('./minimal-reads.mjs', import.meta.url));

function run(sandbox, args) {
  return new Promise((resolve) => {
    // A preload prints the CLI's own peak RSS (process.resourceUsage().maxRSS, KiB) on exit.
    const child = spawn(process.execPath, ['--import', 'data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss="+process.resourceUsage().maxRSS+"\\n"))', MAIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const lines = [];
    child.stdout.on('data', (c) => {
      stdout += c;
      for (const l of c.toString().split('\n')) if (l.startsWith('{"type":"done"')) lines.push({ at: performance.now(), line: l });
    });
    child.stderr.on('data', (c) => (stderr += c));
    const start = performance.now();
    child.on('exit', (code) => {
      const rss = Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
      resolve({ code, ms: performance.now() - start, rssMb: rss, stdout, stderr, done: lines[0] });
    });
  });
}

/**
 * `plan` and `status` on the large scenario against their floors, in one run: bench/minimal-reads.mjs reading the
 * same URLs (each command's own first pages, recorded on the sandbox in a first run of it), paged the same way, the
 * lists side by side. Medians of `runs` alternating runs; peak RSS the largest seen.
 */
export async function planOnLarge(node = process.execPath, label = `Node ${process.versions.node.split('.')[0]}`, runs = 3) {
  // A manual clock: no simulator passes compete with the API server for this process's event loop. Every object's JSON
  // kept (the pods too): the lists then cost the API server what they cost kube-apiserver's watch cache, and the
  // ratio is the client's. With the default 32 Mi the 50,000 pods are serialized again for every list, and the floor,
  // slowed as much as the command, made the ratio look better than it is (1.10× where it was 1.30×).
  const sandbox = await startSandbox({ scenario: 'large', manualClock: new ManualClock(new Date()), jsonCacheChars: 2 ** 30 });
  const dir = mkdtempSync(join(tmpdir(), 'karp-drift-bench-'));
  const port = Number(new URL(sandbox.kube.url).port);
  let urls;
  const record = (message) => {
    const { request } = message;
    if (request.socket.localPort !== port) return;
    const url = new URL(request.url ?? '/', sandbox.kube.url);
    if (!url.searchParams.has('continue')) urls.add(url.pathname + url.search);
  };
  try {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env };
    const rows = [];
    for (const [name, args] of [
      ['plan', ['plan', '--to', '1.30', '-o', 'json']],
      ['status', ['status', '-o', 'json']],
    ]) {
      const command = { name, command: node, args: [MAIN, ...args], env, node: true };
      urls = new Set();
      subscribe('http.server.request.start', record);
      await timed(command.command, command.args, command);
      unsubscribe('http.server.request.start', record);
      const spec = join(dir, `${name}-reads.json`);
      writeFileSync(spec, JSON.stringify({ server: sandbox.kube.url, caData: sandbox.kube.caData, token: sandbox.kube.token, urls: [...urls] }));
      const reads = { name: 'reads', command: node, args: [MINIMAL_READS, spec], env, node: true };
      const serialized = sandbox.kube.store.objects.serializations;
      const r = await alternate([command, reads], runs);
      const again = sandbox.kube.store.objects.serializations - serialized;
      if (again > 0) console.log(`  warning: the sandbox serialized ${again} objects again while ${name} was measured: its ratio includes the sandbox's own work`);
      const ms = r[name].ms;
      console.log(`  ${name} on the large scenario (${label}): ${urls.size} first pages; ${name} ${ms.toFixed(0)} ms, peak RSS ${r[name].rssMb.toFixed(0)} MB; minimal reads ${r.reads.ms.toFixed(0)} ms, peak RSS ${r.reads.rssMb.toFixed(0)} MB`);
      rows.push(
        { figure: `\`${name}\` vs the minimal reads it needs, \`large\` sandbox (${label})`, result: `${ms.toFixed(0)} ms vs ${r.reads.ms.toFixed(0)} ms`, ratio: ms / r.reads.ms, goal: 1.2 },
        { figure: `\`${name}\` peak RSS, \`large\` sandbox (${label})`, result: `${r[name].rssMb.toFixed(0)} MB (minimal reads: ${r.reads.rssMb.toFixed(0)} MB)`, value: r[name].rssMb, goal: 300, unit: 'MB' },
      );
    }
    return rows;
  } finally {
    unsubscribe('http.server.request.start', record);
    rmSync(dir, { recursive: true, force: true });
    await sandbox.stop();
  }
}

function scenarioWith(nodes) {
  return parseScenario(
    [
      `name: bench-${nodes}`,
      'controlPlaneVersion: "1.30"',
      'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
      `nodePools: [{ name: general, nodeClass: default, nodes: ${nodes}, arch: [amd64, arm64], budgets: [{ nodes: "20%" }] }]`,
      `workloads: [{ name: web, nodePool: general, replicas: ${nodes * 2}, pdb: { maxUnavailable: "10%" } }]`,
    ].join('\n'),
    'bench',
  );
}

async function rollout(nodes) {
  const sandbox = await startSandbox({ scenario: scenarioWith(nodes), speed: 600 });
  let lastOldGone;
  const old = new Set(sandbox.kube.store.list('nodeclaims.karpenter.sh').map((c) => c.metadata.name));
  const unsubscribe = sandbox.kube.store.objects.subscribe((change) => {
    if (change.type === 'DELETED' && change.groupResource === 'nodeclaims.karpenter.sh' && old.delete(change.object.metadata.name) && old.size === 0) {
      lastOldGone = performance.now();
    }
  });
  try {
    const r = await run(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json']);
    if (r.code !== 0) throw new Error(`upgrade exited ${r.code}: ${r.stderr}`);
    const requests = sandbox.kube.requests.length;
    const byVerb = {};
    for (const q of sandbox.kube.requests) byVerb[q.verb] = (byVerb[q.verb] ?? 0) + 1;
    return { requests, byVerb, latencyMs: r.done && lastOldGone ? r.done.at - lastOldGone : NaN, ms: r.ms };
  } finally {
    unsubscribe();
    await sandbox.stop();
  }
}

export async function rolloutCost() {
  const small = await rollout(12);
  const big = await rollout(60);
  for (const [n, r] of [[12, small], [60, big]]) {
    console.log(`  rollout of ${n} nodes: ${r.requests} API requests (${JSON.stringify(r.byVerb)}), done reported ${r.latencyMs.toFixed(0)} ms after the last old NodeClaim was gone`);
  }
  const latency = Math.max(small.latencyMs, big.latencyMs);
  return [
    { name: 'API requests, 60 vs 12 nodes', value: big.requests / small.requests, unit: 'x', target: 1.5, ok: big.requests / small.requests <= 1.5 },
    { name: 'done after the last old NodeClaim', value: latency, unit: 'ms', target: 1000, ok: latency < 1000 },
  ];
}
