// Deleting an object karp-drift created (`rollback` after `upgrade --templates` created a NodePool or an EC2NodeClass):
// at the uid the plan read, so that a namesake someone created since is left alone (apimachinery DeleteOptions
// `preconditions.uid`); in the background, as kubectl deletes, so Karpenter drains and terminates the NodePool's nodes
// through their finalizers while the rollback goes on.
import { RefusedError } from '../errors.js';
import type { Cluster } from './client.js';
import { clusterFailure } from './failures.js';
import { ApiError, sendJson } from './request.js';
import type { Resource } from '../karpenter/resources.js';

/** `deleted`, or `gone` when it was deleted already (a second rollback after one interrupted). */
export async function deleteCreated(
  cluster: Cluster,
  r: Resource<unknown>,
  object: { name: string; uid: string },
  options: { dryRun: boolean; signal?: AbortSignal },
): Promise<'deleted' | 'gone'> {
  const where = `${r.kind.toLowerCase()}/${object.name}`;
  const body = {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    preconditions: { uid: object.uid },
    propagationPolicy: 'Background',
    ...(options.dryRun ? { dryRun: ['All'] } : {}),
  };
  try {
    await sendJson(cluster, `${r.path}/${encodeURIComponent(object.name)}`, { method: 'DELETE', body }, {}, options.signal);
    return 'deleted';
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return 'gone';
    if (err instanceof ApiError && err.code === 409) {
      throw new RefusedError(`${where} is not the object karp-drift created (uid ${object.uid}): it was deleted and created again since the plan; it was left as it is`, {
        cause: err,
        hint: `delete it by hand if it should go (kubectl delete ${r.kind.toLowerCase()} ${object.name})`,
      });
    }
    throw clusterFailure(err, { doing: `deleting ${where}`, verb: 'delete', resource: r.resource }, cluster);
  }
}
