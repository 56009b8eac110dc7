// `--from-context`/`--from-kubeconfig`: the cluster the AMIs were tested in (typically staging), connected to with its
// own kubeconfig context and only read (discovery and lists: the read-only ClusterRole is enough), then turned into the
// AMIs it has tested by the pure plan/source-cluster.ts. Nothing is ever written to it.
import { existsSync } from 'node:fs';
import type { ClusterAmis } from '../ami/amis-file.js';
import { loadCluster, type Cluster } from '../cluster/client.js';
import { discoverCluster, type Discovery } from '../cluster/discovery.js';
import { readInventory } from '../cluster/inventory.js';
import { RefusedError, UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CommandContext } from './context.js';
import type { PlanOptions } from './options.js';
import { sourceClusterAmis, sourceRegion, type NeededKey, type SourceClusterRead } from '../plan/source-cluster.js';

type From = NonNullable<PlanOptions['fromCluster']>;

const flagOf = (from: From) =>
  from.context !== undefined ? `--from-context ${from.context}` : `--from-kubeconfig ${from.kubeconfig ?? ''}`;

/**
 * The source's kubeconfig context: read before anything else, so that a context it does not have is exit 2 before any
 * request to either cluster. The kubeconfig is this cluster's (--kubeconfig, $KUBECONFIG) unless --from-kubeconfig.
 */
export function loadSourceCluster(from: From, ctx: CommandContext, log: Logger): Cluster {
  const flag = flagOf(from);
  if (from.kubeconfig !== undefined && !existsSync(from.kubeconfig)) {
    throw new UsageError(`--from-kubeconfig ${from.kubeconfig}: no such file; nothing was changed`, {
      hint: 'pass the kubeconfig that reaches the cluster the AMIs were tested in (aws eks update-kubeconfig --name <staging> --kubeconfig <file>)',
    });
  }
  try {
    return loadCluster({
      kubeconfig: from.kubeconfig ?? ctx.globals.kubeconfig,
      ...(from.context !== undefined ? { context: from.context } : {}),
      env: ctx.env,
      ...(ctx.globals.requestTimeoutMs !== undefined ? { requestTimeoutMs: ctx.globals.requestTimeoutMs } : {}),
      ...(ctx.globals.verbose ? { log: (line: string) => log.debug(`source: ${line}`) } : {}),
    });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${flag}: ${err.message}; nothing was changed`, {
      cause: err,
      hint:
        from.context !== undefined
          ? `pass one of those contexts with --from-context, or the kubeconfig that has ${from.context} with --from-kubeconfig`
          : 'pass a kubeconfig with a current-context, or name its context with --from-context',
    });
  }
}

/** What was read from the source, before it is judged against what this cluster needs. */
export interface SourceRead {
  read: SourceClusterRead;
  gitVersion: string;
}

/**
 * Reads the source (all its EC2NodeClasses and NodeClaims). It is judged only once this cluster's classes tell what
 * they will pin (testedInSource): what the source runs for anything else does not matter.
 */
export async function readSourceCluster(
  from: From,
  source: Cluster,
  here: Cluster | undefined,
  ctx: CommandContext,
): Promise<SourceRead> {
  const flag = flagOf(from);
  // Shown and recorded without any user:password a server URL may carry (apis/cluster-identity.ts).
  const server = source.identity.server;
  // `here` is absent for `pin` without a cluster: the files are not a cluster to compare with.
  if (source.server === here?.server) {
    throw new UsageError(
      `${flag} is this cluster (context ${source.context}, ${server}): there is nothing to promote from it to itself; nothing was changed`,
      { hint: 'name the context of the cluster the AMIs were tested in, e.g. --from-context staging' },
    );
  }
  const discovery = await discoverSource(source, flag, ctx.signal);
  const inventory = await readInventory(source, { discovery, signal: ctx.signal });
  const region = sourceRegion({
    server: source.server,
    kubeconfigCluster: source.identity.kubeconfigCluster,
    ...(source.credentials.exec ? { exec: source.credentials.exec } : {}),
  });
  return {
    read: { context: source.context, server, ...(region !== undefined ? { region } : {}), inventory },
    gitVersion: discovery.controlPlane.gitVersion,
  };
}

/** What the source has tested of what this cluster needs for `--to`, or its refusal (plan/source-cluster.ts). */
export function testedInSource(source: SourceRead, to: string, needed: readonly NeededKey[], log: Logger): ClusterAmis {
  const { context, server, region } = source.read;
  const tested = sourceClusterAmis(source.read, to, needed);
  const runs = (amis: ClusterAmis['amis']) => amis.map((a) => `${a.family} ${a.arch} ${a.variant} ${a.release}`).join(', ');
  log.info(
    `Source cluster ${context} (${server}${region !== undefined ? `, ${region}` : ''}): Kubernetes ${source.gitVersion}; its nodes run ${runs(tested.amis) || 'none of the AMIs this cluster needs'}`,
  );
  return tested;
}

// "No Karpenter there" keeps the exit code it has for this cluster (2; 3 for EKS Auto Mode), phrased for the source.
async function discoverSource(source: Cluster, flag: string, signal: AbortSignal): Promise<Discovery> {
  try {
    return await discoverCluster(source, signal);
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof RefusedError)) throw err;
    const options = {
      cause: err,
      hint: `check ${flag.split(' ')[0]}: AMIs are promoted from a cluster whose Karpenter nodes run them`,
    };
    const message = `${flag} (the source cluster): ${err.message}; nothing was changed`;
    throw err instanceof RefusedError ? new RefusedError(message, options) : new UsageError(message, options);
  }
}
