// Starts the GitOps stand-in for a sandbox: the directory (the scenario's, --gitops-dir's, or a temporary one), seeded
// with the scenario's GitOps-owned objects when it holds no manifest yet, the owner objects, and a first sync.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { SimClock } from '../karpenter/clock.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import type { BuiltCluster } from '../scenarios/build.js';
import { SANDBOX_OWNERS, type GitOpsTool } from '../scenarios/field-managers.js';
import { isEmptyManifestDir, writeManifestDir } from './manifests.js';
import { GitOpsSyncer } from './syncer.js';

export { GitOpsSyncer } from './syncer.js';

export interface GitOpsStarted {
  syncer: GitOpsSyncer;
  /** For the sandbox's summary line. */
  summary: string;
  stop(): Promise<void>;
}

export async function startGitOps(
  store: KubeStore,
  cluster: BuiltCluster,
  wanted: { tool: GitOpsTool; dir: string | undefined; intervalSeconds: number },
  clock: SimClock,
  log?: (line: string) => void,
): Promise<GitOpsStarted> {
  const temp = wanted.dir === undefined ? await mkdtemp(join(tmpdir(), 'karp-drift-gitops-')) : undefined;
  const dir = resolve(wanted.dir ?? join(temp!, 'manifests'));
  try {
    if (isEmptyManifestDir(dir)) writeManifestDir(dir, cluster.gitopsManifests);
    if (isEmptyManifestDir(dir)) {
      throw new UsageError(`the GitOps directory ${dir} holds no manifest, and the scenario has no object for ${wanted.tool} to seed it with`, {
        hint: 'put the EC2NodeClass and NodePool manifests to sync there, or give the scenario objects with fieldManager: argocd or flux',
      });
    }
    const owner = SANDBOX_OWNERS[wanted.tool];
    const syncer = new GitOpsSyncer({
      store,
      owner,
      dir,
      intervalSeconds: wanted.intervalSeconds,
      intervalMs: Math.max(50, clock.realMs(wanted.intervalSeconds * 1000)),
      now: () => clock.wall(),
      ...(log ? { log } : {}),
    });
    syncer.sync();
    const what = wanted.tool === 'argocd' ? `Argo CD Application ${owner.namespace}/${owner.name}` : `Flux Kustomization ${owner.namespace}/${owner.name}`;
    return {
      syncer,
      summary: `${what} syncs ${dir} every ${wanted.intervalSeconds}s (simulated)`,
      stop: async () => {
        syncer.stop();
        if (temp !== undefined) await rm(temp, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (temp !== undefined) await rm(temp, { recursive: true, force: true });
    throw err;
  }
}
