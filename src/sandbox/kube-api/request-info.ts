// What a request addresses, as apiserver pkg/endpoints/request/requestinfo.go `RequestInfoFactory` reads the path:
// /api/v1/... and /apis/<group>/<version>/..., `namespaces/<ns>/<resource>` scoping (except the namespace
// subresources status and finalize), and the verb from the method plus `?watch`.

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  group: string;
  version: string;
  namespace?: string;
  resource?: string;
  name?: string;
  subresource?: string;
  /** Path segments past <resource>/<name>/<subresource>: nothing serves them. */
  extra: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function requestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const parts = path.split('/').filter((p) => p !== '');
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    group: '',
    version: '',
    extra: false,
  };
  let rest: string[];
  let group = '';
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    version = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return nonResource;
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
  const verbs: Record<string, string> = {
    GET: name ? 'get' : watch ? 'watch' : 'list',
    POST: 'create',
    PUT: 'update',
    PATCH: 'patch',
    DELETE: name ? 'delete' : 'deletecollection',
  };
  return {
    isResourceRequest: true,
    path,
    verb: verbs[method] ?? method.toLowerCase(),
    group,
    version,
    ...(namespace !== undefined ? { namespace } : {}),
    resource,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
    extra: rest.length > 3,
  };
}

/** handlers/rest.go `prefixFromUserAgent`: the default fieldManager of a non-apply write. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0]?.slice(0, 128) ?? '';
}

/**
 * The Table version kubectl asks for (`application/json;as=Table;v=v1;g=meta.k8s.io, …, application/json`), or
 * undefined when plain JSON comes first or alone. Media types the server cannot produce are skipped.
 */
export function tableVersion(accept: string | undefined): 'v1' | 'v1beta1' | undefined {
  for (const entry of (accept ?? '').split(',')) {
    const [type = '', ...params] = entry.split(';').map((s) => s.trim());
    const p = Object.fromEntries(params.map((kv) => kv.split('=').map((s) => s.trim()) as [string, string]));
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    if (p.as === undefined) return undefined;
    if (p.as === 'Table' && p.g === 'meta.k8s.io' && (p.v === 'v1' || p.v === 'v1beta1')) return p.v;
  }
  return undefined;
}
