// `pin --amis-file` and `pin --from-context`: the AMIs a lower environment tested, as `plan` promotes them. The
// source cluster is judged against what every unit of the files will pin.
import type { AmisFile, TestedAmis } from '../ami/amis-file.js';
import type { Cluster } from '../cluster/client.js';
import type { Inventory } from '../karpenter/views.js';
import type { Logger } from '../logger.js';
import { promotionNeeds, requireFileMinor } from '../plan/promotion.js';
import type { CommandContext } from './context.js';
import type { PlanOptions } from './options.js';
import { loadSourceCluster, readSourceCluster, testedInSource } from './source-cluster.js';

export async function pinTested(
  plan: PlanOptions,
  inventories: readonly Inventory[],
  amisFile: AmisFile | undefined,
  here: Cluster | undefined,
  ctx: CommandContext,
  log: Logger,
): Promise<TestedAmis | undefined> {
  const to = plan.kubernetes.version;
  if (amisFile !== undefined) {
    requireFileMinor(amisFile, to);
    return amisFile;
  }
  if (plan.fromCluster === undefined) return undefined;
  const source = loadSourceCluster(plan.fromCluster, ctx, log);
  try {
    const read = await readSourceCluster(plan.fromCluster, source, here, ctx);
    return testedInSource(read, to, inventories.flatMap((inventory) => promotionNeeds(inventory, { to })), log);
  } finally {
    source.close();
  }
}
