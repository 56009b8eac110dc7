import type { IncomingMessage } from 'node:http';
import { isRecord } from './field-set.js';
import { applyJsonPatch, jsonMergePatch, strategicMergePatch } from './patch.js';
import type { PropagationPolicy, WriteOptions } from './registry-store.js';
import { managerFromUserAgent, type RequestInfo } from './request-info.js';
import { groupVersion } from './resources.js';
import type { Reply, RestContext } from './rest-context.js';
import { fieldSelectorMatcher, labelSelectorMatcher, parseFieldSelector } from './selectors.js';
import { parseApplyPatch, serverSideApply } from './server-side-apply.js';
import { badRequest, invalid, notFound } from './status.js';
import { ApiStatusError, type KubeObject, type ResourceInfo } from './types.js';

// The write verbs as apiserver pkg/endpoints/handlers/{create,update,patch,delete}.go decode and answer them:
// 201 for a create (an apply that creates included), 200 otherwise, the object in the body, dryRun=All answered
// without storing, and the fieldManager defaulted from the User-Agent for everything but apply.

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

function parseJsonObject(body: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (!isRecord(parsed)) throw badRequest(`couldn't get version/kind; json parse error: expected an object`);
  return parsed;
}

// handlers/rest.go: dryRun must be "All" (metav1 validation `ValidateDryRun`).
function dryRunOf(p: URLSearchParams, options: string): boolean {
  const values = p.getAll('dryRun');
  const bad = values.find((v) => v !== 'All');
  if (bad !== undefined) {
    const cause = {
      reason: 'FieldValueNotSupported' as const,
      field: 'dryRun',
      message: `Unsupported value: "${bad}": supported values: "All"`,
    };
    throw invalid({ group: 'meta.k8s.io', kind: options }, '', [cause]);
  }
  return values.length > 0;
}

function checkTarget(
  r: ResourceInfo,
  object: Record<string, unknown>,
  info: RequestInfo,
  namespace?: string,
): KubeObject {
  const apiVersion = groupVersion(r);
  if (object.apiVersion !== undefined && object.apiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${JSON.stringify(object.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  const metadata = isRecord(object.metadata) ? { ...object.metadata } : {};
  if (namespace !== undefined) {
    if (metadata.namespace !== undefined && metadata.namespace !== '' && metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata.namespace = namespace;
  }
  if (info.name !== undefined && metadata.name !== info.name) {
    throw badRequest(
      `the name of the object (${typeof metadata.name === 'string' ? metadata.name : ''}) does not match the name on the URL (${info.name})`,
    );
  }
  return { ...object, apiVersion, kind: r.kind, metadata: withoutEmptyMetadata(metadata) };
}

// Decoding a body goes through metav1.ObjectMeta, whose maps and lists are `omitempty`: for custom resources the
// apiextensions decoder's `schemaobjectmeta.SetObjectMeta` turns metadata back into JSON with runtime's converter
// (`isZero`: an empty map or list is left out); a built-in kind's empty map is left out when it is encoded and when
// the field manager compares it. So an empty `annotations: {}` (a merge patch that removed the last annotation) is no
// field at all, and whoever owned the map itself owns nothing there afterwards.
const OMIT_EMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

function withoutEmptyMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const out = { ...metadata };
  for (const field of OMIT_EMPTY) {
    const value = out[field];
    if ((Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0)) {
      delete out[field];
    }
  }
  return out;
}

export function writeVerb(
  req: IncomingMessage,
  info: RequestInfo,
  r: ResourceInfo,
  namespace: string | undefined,
  body: string,
  ctx: RestContext,
): Reply {
  const { store } = ctx;
  const p = new URL(req.url ?? '/', 'https://localhost').searchParams;
  const manager = p.get('fieldManager') ?? managerFromUserAgent(req.headers['user-agent']);
  const subresource = info.subresource === 'status' ? ('status' as const) : undefined;
  const reply = (code: number, o: unknown): Reply => ({
    code,
    body: JSON.stringify(o),
  });

  switch (info.verb) {
    case 'create': {
      const dryRun = dryRunOf(p, 'CreateOptions');
      const object = checkTarget(r, parseJsonObject(body), { ...info, name: undefined }, namespace);
      return reply(201, store.create(r, object, { dryRun, manager }));
    }
    case 'update': {
      const dryRun = dryRunOf(p, 'UpdateOptions');
      const object = checkTarget(r, parseJsonObject(body), info, namespace);
      // The custom resource strategy refuses unconditional updates (AllowUnconditionalUpdate is false).
      if (r.crd && !object.metadata.resourceVersion) {
        const cause = {
          reason: 'FieldValueInvalid' as const,
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
        };
        throw invalid(r, info.name ?? '', [cause]);
      }
      return reply(200, store.update(r, object, { dryRun, manager, subresource }));
    }
    case 'patch':
      return patch(req, info, r, namespace, body, ctx, p, subresource);
    case 'delete': {
      const options = deleteOptions(body, p);
      const result = store.delete(r, info.name ?? '', namespace, options);
      return reply(200, result.object);
    }
    case 'deletecollection': {
      const options = deleteOptions(body, p);
      const labels = labelSelectorMatcher(p.get('labelSelector'));
      const fields = fieldSelectorMatcher(parseFieldSelector(p.get('fieldSelector'), r.resource));
      const targets = store.list(r, namespace).filter((o) => (labels?.(o) ?? true) && (fields?.(o) ?? true));
      const items = targets.map((o) => store.delete(r, o.metadata.name ?? '', o.metadata.namespace, options).object);
      return reply(200, {
        kind: `${r.kind}List`,
        apiVersion: groupVersion(r),
        metadata: {},
        items,
      });
    }
    default:
      throw new ApiStatusError(
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      );
  }
}

function patch(
  req: IncomingMessage,
  info: RequestInfo,
  r: ResourceInfo,
  namespace: string | undefined,
  body: string,
  ctx: RestContext,
  p: URLSearchParams,
  subresource: 'status' | undefined,
): Reply {
  const { store } = ctx;
  const dryRun = dryRunOf(p, 'PatchOptions');
  const name = info.name ?? '';
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  const live = store.get(r, name, namespace);
  const options: WriteOptions = {
    dryRun,
    subresource,
    manager: p.get('fieldManager') ?? managerFromUserAgent(req.headers['user-agent']),
  };
  const answer = (code: number, o: KubeObject): Reply => ({
    code,
    body: JSON.stringify(o),
  });

  if (contentType === 'application/apply-patch+yaml') {
    const manager = p.get('fieldManager');
    if (!manager) {
      const cause = {
        reason: 'FieldValueRequired' as const,
        field: 'fieldManager',
        message: 'Required value: is required for apply patch',
      };
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [cause]);
    }
    const force = p.get('force') === 'true';
    const applied = serverSideApply({
      live,
      applied: parseApplyPatch(body),
      manager,
      force,
      now: store.now().toISOString(),
      resource: r,
      name,
      namespace,
      subresource,
      listSemantics: store.listSemantics(r),
    });
    const computed = { ...options, manager, managedFieldsComputed: true };
    if (!live) {
      if (subresource) throw notFound(r, name);
      return answer(201, store.create(r, applied, computed));
    }
    return answer(200, store.update(r, applied, computed));
  }
  if (p.has('force')) throw badRequest('force flag is only supported for apply patches');
  if (!live) throw notFound(r, name);
  let patched: KubeObject;
  switch (contentType) {
    case 'application/merge-patch+json':
      patched = jsonMergePatch(live, parseJsonObject(body)) as KubeObject;
      break;
    case 'application/strategic-merge-patch+json':
      patched = strategicMergePatch(live, parseJsonObject(body), r);
      break;
    case 'application/json-patch+json': {
      let ops: unknown;
      try {
        ops = JSON.parse(body);
      } catch (err) {
        throw badRequest(`error decoding patch: ${(err as Error).message}`);
      }
      patched = applyJsonPatch(structuredClone(live), ops);
      break;
    }
    default:
      throw new ApiStatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`,
      );
  }
  const target = checkTarget(r, { ...patched, apiVersion: groupVersion(r) }, info, namespace);
  return answer(200, store.update(r, target, options));
}

function deleteOptions(
  body: string,
  p: URLSearchParams,
): {
  dryRun: boolean;
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
} {
  const options = body.trim() ? parseJsonObject(body) : {};
  const bodyDryRun = Array.isArray(options.dryRun) ? (options.dryRun as string[]) : [];
  const dryRun = dryRunOf(
    new URLSearchParams([...p.getAll('dryRun'), ...bodyDryRun].map((v): [string, string] => ['dryRun', v])),
    'DeleteOptions',
  );
  let policy = (options.propagationPolicy ?? p.get('propagationPolicy') ?? undefined) as PropagationPolicy | undefined;
  const orphan =
    options.orphanDependents ?? (p.has('orphanDependents') ? p.get('orphanDependents') === 'true' : undefined);
  if (policy === undefined && orphan !== undefined) policy = orphan ? 'Orphan' : 'Background';
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    const cause = {
      reason: 'FieldValueNotSupported' as const,
      field: 'propagationPolicy',
      message: `Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan", "nil"`,
    };
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [cause]);
  }
  const preconditions = isRecord(options.preconditions)
    ? (options.preconditions as { uid?: string; resourceVersion?: string })
    : undefined;
  return {
    dryRun,
    ...(policy ? { propagationPolicy: policy } : {}),
    ...(preconditions ? { preconditions } : {}),
  };
}
