import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { isRecord } from './field-set.js';
import { strategicMerge } from './strategic-merge-patch.js';
import { ApiStatusError, type KubeObject, type ResourceInfo } from './types.js';

// The three PATCH bodies besides apply, as k8s.io/apiserver/pkg/endpoints/handlers/patch.go applies them.

/**
 * RFC 7396 JSON merge patch (application/merge-patch+json). Written out rather than imported: the RFC's algorithm
 * is the ten lines below, fast-json-patch only does RFC 6902, and kube-apiserver's evanphx `MergePatch` is the
 * same recursion (objects merge, null deletes, anything else replaces).
 */
export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value == null) delete out[key];
    else out[key] = jsonMergePatch(out[key], value);
  }
  return out;
}

/**
 * RFC 6902 JSON patch (application/json-patch+json). A body that is not a list of operations is a 400, as
 * evanphx `DecodePatch` fails; an operation that does not apply is the 422 `NewGenericServerResponse` builds, its
 * cause worded as evanphx/json-patch words it.
 */
export function applyJsonPatch(target: KubeObject, ops: unknown): KubeObject {
  if (!Array.isArray(ops) || !ops.every(isRecord)) {
    const got = Array.isArray(ops) ? 'array' : ops == null ? 'null' : isRecord(ops) ? 'object' : typeof ops;
    throw new ApiStatusError(400, 'BadRequest', `json: cannot unmarshal ${got} into Go value of type jsonpatch.Patch`);
  }
  try {
    return jsonpatch.applyPatch(target, ops as unknown as Operation[], true, false).newDocument;
  } catch (err) {
    const cause = jsonPatchFailure(err);
    throw new ApiStatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
      causes: [{ reason: '', message: cause, field: '' }],
    });
  }
}

function jsonPatchFailure(err: unknown): string {
  if (!(err instanceof jsonpatch.JsonPatchError)) return err instanceof Error ? err.message : String(err);
  const op = (err.operation ?? {}) as { op?: string; path?: string; from?: string };
  const path = op.path ?? '';
  switch (err.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
      if (op.op === 'remove')
        return `error in remove for path: '${path}': unable to remove nonexistent key: ${lastSegment(path)}: missing value`;
      if (op.op === 'replace') return `replace operation does not apply: doc is missing key: ${path}: missing value`;
      return `${op.op ?? 'add'} operation does not apply: doc is missing path: "${path}": missing value`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${op.op ?? 'move'} operation does not apply: doc is missing from path: ${op.from ?? ''}: missing value`;
    case 'OPERATION_OP_INVALID':
      return `Unexpected kind: ${op.op ?? ''}`;
    default:
      return err.message.split('\n')[0] ?? err.message;
  }
}

function lastSegment(path: string): string {
  return (path.split('/').pop() ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Media types a custom resource accepts for PATCH (apiextensions-apiserver customresource_handler.go). */
const customResourcePatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * Strategic merge patch (application/strategic-merge-patch+json) for the core kinds. Custom resources have no Go
 * struct to carry patch strategies, so kube-apiserver answers them 415, naming the types it does accept.
 */
export function strategicMergePatch(
  target: KubeObject,
  patch: Record<string, unknown>,
  resource: ResourceInfo,
): KubeObject {
  if (resource.crd) {
    throw new ApiStatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${customResourcePatchTypes.join(', ')}`,
    );
  }
  return strategicMerge(target, patch, resource.resource) as KubeObject;
}
