import { createHash } from 'node:crypto';
import type { KubeStore } from './registry-store.js';
import type { ResourceInfo } from './types.js';

// A minimal /openapi/v3, because kubectl apply needs one: with --validate=strict (its default) it asks the
// OpenAPI v3 document of the object's group version whether the PATCH operation for that kind takes the
// `fieldValidation` query parameter (cli-runtime resource/query_param_verifier_v3.go `supportsQueryParamV3`), and
// without any OpenAPI it fails with "failed to download openapi". So each served group version lists its
// resources' operations with their x-kubernetes-group-version-kind and query parameters. Custom resources also
// carry their CRD schema under components.schemas, as kube-apiserver publishes it; built-in kinds carry none.
// /openapi/v2 is not served: kubectl falls back to it only when v3 is missing.

const queryParam = (name: string, type = 'string') => ({
  name,
  in: 'query',
  schema: { type, uniqueItems: true },
});
const WRITE_PARAMS = [queryParam('dryRun'), queryParam('fieldManager'), queryParam('fieldValidation')];

// kube-openapi names definitions by reversed group: karpenter.sh/v1 NodeClaim -> sh.karpenter.v1.NodeClaim.
const definitionName = (r: ResourceInfo) =>
  r.group
    ? `${r.group.split('.').reverse().join('.')}.${r.version}.${r.kind}`
    : `io.k8s.api.core.${r.version}.${r.kind}`;

function gvPath(r: ResourceInfo): string {
  return r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
}

function resourcePaths(r: ResourceInfo): Record<string, unknown> {
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const op = (action: string, parameters: unknown[]) => ({
    operationId: `${action}${r.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    parameters,
    responses: { '200': { description: 'OK' } },
  });
  const base = `/${gvPath(r)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}`;
  return {
    [base]: { get: op('list', []), post: op('post', WRITE_PARAMS) },
    [`${base}/{name}`]: {
      get: op('get', []),
      put: op('put', WRITE_PARAMS),
      patch: op('patch', [...WRITE_PARAMS, queryParam('force', 'boolean')]),
      delete: op('delete', [queryParam('dryRun')]),
    },
  };
}

/** The document for one group version path (`apis/karpenter.sh/v1`), or undefined when it is not served. */
export function openApiV3Document(store: KubeStore, path: string): object | undefined {
  const served = store.resources.all().filter((r) => gvPath(r) === path);
  if (served.length === 0) return undefined;
  const schemas: Record<string, unknown> = {};
  for (const r of served) {
    const version = store.resources.customResource(r)?.crd.spec.versions.find((v) => v.name === r.version);
    if (version?.schema) {
      schemas[definitionName(r)] = {
        ...version.schema.openAPIV3Schema,
        'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.kind }],
      };
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    paths: Object.assign({}, ...served.map(resourcePaths)) as Record<string, unknown>,
    components: { schemas },
  };
}

/** /openapi/v3: the group versions and where their documents are, with a content hash for client caches. */
export function openApiV3Index(store: KubeStore): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const r of store.resources.all()) {
    const path = gvPath(r);
    if (paths[path]) continue;
    const hash = createHash('sha512')
      .update(JSON.stringify(openApiV3Document(store, path)))
      .digest('hex')
      .toUpperCase();
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}
