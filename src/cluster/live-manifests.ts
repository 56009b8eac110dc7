// What `upgrade --templates` compares the rendered objects with: the live EC2NodeClass and NodePool of that name
// (whole spec, labels, annotations, managedFields), and the NodeClaims with their labels, to count the nodes a
// template change would drift. Converted at the boundary: the diff never sees a raw API object.
import type { Cluster } from './client.js';
import type { ApiObject } from '../karpenter/convert.js';
import type { LiveObject, TemplateClaim } from '../karpenter/views.js';
import { clusterFailure } from './failures.js';
import { listAll } from './list.js';
import { ApiError, getJson } from './request.js';
import { karpenterResources, type Resource } from '../karpenter/resources.js';
import { READ_RETRY, retrying, retryOn } from './retry.js';

export interface LiveManifests {
  nodeClass?: LiveObject;
  nodePool?: LiveObject;
  nodeClaims: TemplateClaim[];
}

export function liveObject(o: ApiObject): LiveObject {
  const spec = o.spec != null && typeof o.spec === 'object' && !Array.isArray(o.spec) ? (o.spec as Record<string, unknown>) : {};
  return {
    resourceVersion: o.metadata?.resourceVersion ?? '',
    labels: o.metadata?.labels ?? {},
    annotations: o.metadata?.annotations ?? {},
    spec,
    managedFields: o.metadata?.managedFields ?? [],
  };
}

function templateClaim(o: ApiObject): TemplateClaim {
  const labels = o.metadata?.labels ?? {};
  const status = (o.status ?? {}) as { imageID?: unknown };
  const spec = (o.spec ?? {}) as { nodeClassRef?: { name?: unknown } };
  return {
    name: o.metadata?.name ?? '',
    labels,
    ...(labels['karpenter.sh/nodepool'] ? { nodePool: labels['karpenter.sh/nodepool'] } : {}),
    ...(typeof spec.nodeClassRef?.name === 'string' ? { nodeClass: spec.nodeClassRef.name } : {}),
    ...(typeof status.imageID === 'string' ? { imageId: status.imageID } : {}),
    deleting: o.metadata?.deletionTimestamp != null,
  };
}

async function readOne(cluster: Cluster, r: Resource<unknown>, name: string, signal?: AbortSignal): Promise<LiveObject | undefined> {
  try {
    return liveObject(await retrying(() => getJson<ApiObject>(cluster, `${r.path}/${encodeURIComponent(name)}`, {}, signal), retryOn(cluster, READ_RETRY), signal));
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw clusterFailure(
      err,
      {
        doing: `reading ${r.kind.toLowerCase()}/${name}`,
        verb: 'get',
        resource: r.resource,
      },
      cluster,
    );
  }
}

/** The Karpenter v1 EC2NodeClass and NodePool named `name` (undefined when absent), and every NodeClaim. */
export async function readLiveManifests(cluster: Cluster, name: string, signal?: AbortSignal): Promise<LiveManifests> {
  const r = karpenterResources('v1');
  const claims: Resource<TemplateClaim> = {
    ...r.nodeClaims,
    view: templateClaim,
  };
  const [nodeClass, nodePool, listed] = await Promise.all([
    readOne(cluster, r.nodeClasses, name, signal),
    readOne(cluster, r.nodePools, name, signal),
    listAll(cluster, claims, { signal }),
  ]);
  return {
    ...(nodeClass ? { nodeClass } : {}),
    ...(nodePool ? { nodePool } : {}),
    nodeClaims: listed.items,
  };
}
