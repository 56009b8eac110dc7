// Diagnostic (not a benchmark): what the sandbox holds while `upgrade` follows a rollout of the `large` fleet in
// thirty NodePools. Every 30 s, after a full GC: heap used, RSS, and the sizes of what the API server and the
// simulator keep (it reads the store's private fields: keep it in step with store.ts). How the 10 MB a minute of
// recreated pods' managedFields was found (field-set.ts interns them now).
// `node --expose-gc bench/memory-probe.mjs [minutes] [speed]` after `npm run build`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { clearInterval, setInterval, setTimeout } from 'node:timers';
import { startSandbox } from '../dist/sandbox/sandbox.js';
import { largeInPools } from './large-rollout.mjs';

const minutes = Number(process.argv[2] ?? 8);
const speed = Number(process.argv[3] ?? 60);
setFlagsFromString('--optimize-for-size');
const sandbox = await startSandbox({ scenario: largeInPools(), speed });
const store = sandbox.kube.store.objects;
const child = spawn(process.execPath, [fileURLToPath(new URL('../dist/main.js', import.meta.url)), 'upgrade', '--to', '1.30', '--yes', '-o', 'json'], {
  env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env },
  stdio: ['ignore', 'ignore', 'ignore'],
});
const mb = (n) => (n / 2 ** 20).toFixed(0);
const start = Date.now();
function sample() {
  globalThis.gc?.();
  const m = process.memoryUsage();
  const sizes = {};
  for (const [k, v] of Object.entries(sandbox.simulator.ctx.memory)) if (v && typeof v.size === 'number') sizes[k] = v.size;
  const tables = {};
  for (const [gr, t] of store.tables) tables[gr] = t.count;
  const replaced = [...store.list('nodeclaims.karpenter.sh')].length;
  // Versions the history holds that the store no longer does, as JSON characters.
  const live = new Set();
  for (const gr of store.tables.keys()) for (const o of store.list(gr)) live.add(o);
  const held = new Set();
  for (let i = store.historyStart; i < store.history.length; i++) {
    const c = store.history[i];
    for (const o of [c.object, c.previous]) if (o && !live.has(o)) held.add(o);
  }
  let heldChars = 0;
  for (const o of held) heldChars += JSON.stringify(o).length;
  let liveChars = 0;
  for (const o of live) liveChars += JSON.stringify(o).length;
  const ev = sandbox.simulator.ctx.events;
  const extra = { heldVersions: held.size, heldMb: mb(heldChars), liveMb: mb(liveChars), historyArray: store.history.length, dependents: store.dependents.size, podsByNode: store.podsByNode.size, lastSent: ev.lastSent?.size, correlators: [...(ev.correlators?.values() ?? [])].map((c) => [c.spam, c.aggregates, c.observed].map((l) => l.entries?.size ?? l.map?.size)), taken: sandbox.simulator.ctx.taken.names.size };
  console.log(
    JSON.stringify({
      s: Math.round((Date.now() - start) / 1000),
      heap: mb(m.heapUsed),
      rss: mb(m.rss),
      ext: mb(m.external + m.arrayBuffers),
      history: store.history.length - store.historyStart,
      json: mb(store.jsonChars),
      jsonEntries: store.json.size,
      requests: sandbox.kube.requests.length,
      commands: sandbox.simulator.disruptions.entries().length,
      tables,
      replaced,
      ...extra,
      sizes: Object.fromEntries(Object.entries(sizes).filter(([, v]) => v > 100)),
    }),
  );
}
sample();
const timer = setInterval(sample, 30_000);
await new Promise((resolve) => {
  setTimeout(resolve, minutes * 60_000);
  child.on('exit', resolve);
});
clearInterval(timer);
sample();
child.kill('SIGKILL');
await sandbox.stop();
process.exit(0);
