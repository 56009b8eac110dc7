// The cluster `pin` checks against, when there is one: a kubeconfig context named (--context, --kubeconfig: it must
// answer) or the current one (tried; without it, or unreachable, the checks that need a cluster are not made and the
// output says so). Read only: discovery and the same lists as `plan`.
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type { Cluster } from '../cluster/client.js';
import { KarpDriftError, UsageError } from '../errors.js';
import type { Inventory } from '../karpenter/views.js';
import type { Logger } from '../logger.js';
import type { CommandContext } from './context.js';
import { connect, readScope } from './connect.js';

export type PinCluster =
  | { cluster: Cluster; inventory: Inventory; identity: ClusterIdentity & { gitVersion: string } }
  | { none: string };

export async function readPinCluster(ctx: CommandContext, wanted: boolean, log: Logger): Promise<PinCluster> {
  if (!wanted) return { none: '--no-cluster' };
  const named = ctx.globals.context !== undefined || ctx.globals.kubeconfig !== undefined || ctx.globals.expectCluster !== undefined;
  let cluster: Cluster | undefined;
  try {
    ({ cluster } = await connect(ctx));
    const { discovery, inventory } = await readScope(ctx, cluster, []);
    log.info(`Cluster ${cluster.context} (${cluster.server}): Kubernetes ${discovery.controlPlane.gitVersion}, Karpenter API ${discovery.karpenterApi}`);
    return { cluster, inventory, identity: { ...cluster.identity, gitVersion: discovery.controlPlane.gitVersion } };
  } catch (err) {
    cluster?.close();
    if (named || !(err instanceof KarpDriftError)) throw err;
    // No kubeconfig or no current-context is the ordinary case of a CI job on files: said at -v. A context that does
    // not answer is a warning: the user may have expected its checks.
    const why = err.message.split('\n')[0]!;
    if (err instanceof UsageError && cluster === undefined) log.debug(`no cluster: ${why}`);
    else log.warn(`the current kubeconfig context did not answer (${why}); the checks that need a cluster are not made (--context requires one, --no-cluster does not try)`);
    return { none: cluster === undefined ? 'no kubeconfig context' : `${cluster.context} did not answer` };
  }
}
