// Where every command that reads a cluster starts: the kubeconfig context (and --expect-cluster's word from EKS that
// it is the cluster named), then discovery and the inventory of the classes in scope. Its own module, apart from
// planning.ts: `status`, `wait`, `pause` and the other commands that only read the cluster load none of the planning
// (plans, stages, AMI resolution) that `plan` and `upgrade` add.
import type { Logger } from '../logger.js';
import { logger, type CommandContext } from './context.js';
import { clusterCaPem, loadCluster, type Cluster } from '../cluster/client.js';
import { expectedClusterRefusal } from '../cluster/expected-cluster.js';
import { discoverCluster, type Discovery } from '../cluster/discovery.js';
import { readInventory } from '../cluster/inventory.js';
import type { Inventory } from '../karpenter/views.js';

/**
 * Every command that reaches a cluster starts here: the kubeconfig context, then, with --expect-cluster, EKS's word
 * that the context's server is that cluster, before any request to the cluster or any other AWS call.
 */
export async function connect(ctx: CommandContext): Promise<{ cluster: Cluster; log: Logger }> {
  const log = logger(ctx.io, ctx.globals);
  const cluster = loadCluster({
    kubeconfig: ctx.globals.kubeconfig,
    context: ctx.globals.context,
    env: ctx.env,
    ...(ctx.globals.requestTimeoutMs !== undefined ? { requestTimeoutMs: ctx.globals.requestTimeoutMs } : {}),
    ...(ctx.globals.verbose ? { log: (line: string) => log.debug(line) } : {}),
  });
  const expected = ctx.globals.expectCluster;
  if (expected) {
    try {
      // Loaded only when asked for: the EKS client is not part of a plain `status`.
      const { describeEksCluster } = await import('../ami/eks-cluster.js');
      const { region, profile, requestTimeoutMs } = ctx.globals;
      const eks = await describeEksCluster(expected, { region, profile, requestTimeoutMs }, log);
      const kube = { context: cluster.context, server: cluster.server, caPem: clusterCaPem(cluster) };
      const refusal = expectedClusterRefusal(kube, eks, expected);
      if (refusal) throw refusal;
      log.debug(`--expect-cluster: context ${cluster.context} is EKS cluster ${eks.arn} (${eks.endpoint ?? ''})`);
    } catch (err) {
      cluster.close();
      throw err;
    }
  }
  return { cluster, log };
}

/** Discovery and the inventory of the classes named (all when none): what status, wait and rollback read first. */
export async function readScope(
  ctx: CommandContext,
  cluster: Cluster,
  nodeClasses: readonly string[],
): Promise<{ discovery: Discovery; inventory: Inventory }> {
  // Discovery under way while the lists that do not depend on it are read (cluster/inventory.ts).
  const discovering = discoverCluster(cluster, ctx.signal);
  const [discovery, inventory] = await Promise.all([
    discovering,
    readInventory(cluster, {
      nodeClasses: nodeClasses.length > 0 ? [...nodeClasses] : undefined,
      discovery: discovering,
      signal: ctx.signal,
    }),
  ]);
  return { discovery, inventory };
}
