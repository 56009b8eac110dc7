// The GitOps stand-in: Argo CD with automated sync and self-heal, or Flux's kustomize-controller, reduced to what a
// rollout meets. Every interval it reads the directory (manifests.ts) and applies each object with server-side apply
// under the tool's field manager, forced (scenarios/field-managers.ts `gitopsApply`), so a field another manager
// changed is put back on the next sync; then it records the sync on the Application or Kustomization
// (owner-objects.ts). Not emulated: pruning, health checks, sync waves and hooks, kustomize builds, Helm, Git itself.
import type { KubeStore } from '../kube-api/registry-store.js';
import { groupVersion } from '../kube-api/resources.js';
import { ApiStatusError, type KubeObject } from '../kube-api/types.js';
import { gitopsApply, managerOf, type GitOpsOwner } from '../scenarios/field-managers.js';
import { readManifestDir, revisionOf } from './manifests.js';
import { createOwnerObjects, recordSync, repositoryUrl, type SyncRecord } from './owner-objects.js';

export interface GitOpsSyncerOptions {
  store: KubeStore;
  owner: GitOpsOwner;
  /** Absolute. */
  dir: string;
  /** Simulated seconds between syncs, and what they are in real milliseconds. */
  intervalSeconds: number;
  intervalMs: number;
  now: () => Date;
  log?: (line: string) => void;
}

export class GitOpsSyncer {
  /** Every sync that changed something or failed, oldest first (what the owner's history is made of). */
  readonly syncs: SyncRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;

  constructor(private readonly options: GitOpsSyncerOptions) {
    createOwnerObjects(options.store, options.owner, options.dir, options.intervalSeconds);
  }

  get owner(): GitOpsOwner {
    return this.options.owner;
  }

  get dir(): string {
    return this.options.dir;
  }

  get repoURL(): string {
    return repositoryUrl(this.options.owner, this.options.dir);
  }

  /** One sync, now. Returns its record (also when nothing changed: then nothing is written). */
  sync(): SyncRecord {
    const { store, owner, dir, now, log } = this.options;
    const read = readManifestDir(dir);
    const revision = revisionOf(read.files);
    const at = now();
    const record: SyncRecord = { revision, at, resources: [] };
    if (read.problems.length > 0) {
      record.failure = `rpc error: manifests in ${dir} cannot be built: ${read.problems.join('; ')}`;
    } else {
      let changed = false;
      const failed: string[] = [];
      for (const { file, object } of byApplyOrder(read.objects)) {
        const outcome = applyOne(store, owner, object);
        record.resources.push(outcome.resource);
        if (outcome.resource.failed !== undefined) failed.push(`${file}: ${outcome.resource.failed}`);
        changed ||= outcome.changed;
      }
      if (failed.length > 0) record.failure = `one or more objects failed to apply, reason: ${failed.join('; ')}`;
      if (changed) log?.(`${managerOf(owner.tool)}: synced revision ${revision.slice(0, 7)} of ${dir} (${record.resources.length} objects)`);
    }
    const key = `${revision}\0${record.failure ?? ''}`;
    if (key !== this.last) {
      this.last = key;
      this.syncs.push(record);
      if (record.failure !== undefined) log?.(`${managerOf(owner.tool)}: sync of ${dir} failed: ${record.failure}`);
      recordSync(store, owner, record, this.syncs);
    }
    return record;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      try {
        this.sync();
      } catch (err) {
        // A bug here must not take the API server down with it: said, and tried again next time.
        this.options.log?.(`gitops sync failed: ${(err as Error).stack ?? String(err)}`);
      }
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Namespaces first (kubectl and both tools order them so), then as the files list them. */
function byApplyOrder<T extends { object: KubeObject }>(objects: readonly T[]): T[] {
  return [...objects].sort((a, b) => Number(b.object.kind === 'Namespace') - Number(a.object.kind === 'Namespace'));
}

function applyOne(
  store: KubeStore,
  owner: GitOpsOwner,
  object: KubeObject,
): { changed: boolean; resource: SyncRecord['resources'][number] } {
  const r = store.resources.all().find((x) => groupVersion(x) === object.apiVersion && x.kind === object.kind);
  const resource = {
    group: r?.group ?? object.apiVersion.split('/').slice(0, -1).join('/'),
    version: r?.version ?? object.apiVersion.split('/').at(-1) ?? '',
    kind: object.kind,
    name: object.metadata.name ?? '',
    namespace: object.metadata.namespace ?? (r?.namespaced === true ? owner.destinationNamespace : ''),
  };
  if (r === undefined) return { changed: false, resource: { ...resource, failed: `the server could not find the requested resource (${object.apiVersion} ${object.kind})` } };
  const before = store.get(r, resource.name, r.namespaced ? resource.namespace : undefined)?.metadata.resourceVersion;
  try {
    const after = gitopsApply(store, r, object, owner);
    return { changed: after.metadata.resourceVersion !== before, resource };
  } catch (err) {
    if (!(err instanceof ApiStatusError)) throw err;
    return { changed: false, resource: { ...resource, failed: err.message } };
  }
}
