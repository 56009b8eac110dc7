// `karp-drift status`: where the nodes of each NodePool stand (kubelet versions, AMIs, drift) and what blocks them.
// --watch re-reads and redraws until interrupted.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from '../cli.js';
import { discoverCluster } from '../cluster/discovery.js';
import { readInventory } from '../cluster/inventory.js';
import type { StatusOptions } from '../options.js';
import { redrawFrame } from '../report/progress.js';
import { clusterStatus, statusJson, statusTable } from '../report/status.js';
import { connect } from './planning.js';

/** How often --watch re-reads: a full inventory is a handful of paginated lists. */
const WATCH_EVERY_MS = 5000;

export async function status(options: StatusOptions, ctx: CommandContext): Promise<void> {
  const { cluster } = connect(ctx);
  try {
    const discovery = await discoverCluster(cluster, ctx.signal);
    let frame: string | undefined;
    for (;;) {
      const inventory = await readInventory(cluster, { nodeClasses: options.nodeClasses.length > 0 ? options.nodeClasses : undefined, discovery, signal: ctx.signal });
      const scoped = options.nodeClasses.length === 0 ? inventory : { ...inventory, nodePools: inventory.nodePools.filter((p) => options.nodeClasses.includes(p.nodeClass)) };
      const s = clusterStatus(scoped, new Date());
      if (ctx.globals.output === 'json') ctx.io.out(`${statusJson(s)}\n`);
      else if (options.watch && ctx.io.interactive) {
        const next = statusTable(s);
        ctx.io.out(redrawFrame(frame, next));
        frame = next;
      } else ctx.io.out(statusTable(s));
      if (!options.watch) return;
      try {
        await sleep(WATCH_EVERY_MS, undefined, { signal: ctx.signal });
      } catch {
        return; // interrupted: --watch ends quietly
      }
    }
  } finally {
    cluster.close();
  }
}
