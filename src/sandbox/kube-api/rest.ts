import type { IncomingMessage, ServerResponse } from 'node:http';
import { tableVersion, type RequestInfo } from './request-info.js';
import { groupResource, groupVersion } from './resources.js';
import type { Reply, RestContext } from './rest-context.js';
import { writeVerb } from './rest-write.js';
import { fieldSelectorMatcher, labelSelectorMatcher, parseFieldSelector, type Matcher } from './selectors.js';
import { badRequest, methodNotAllowed, notFound, pathNotFound } from './status.js';
import { toTable, type IncludeObject } from './table.js';
import { ApiStatusError, type KubeObject, type ResourceInfo } from './types.js';
import { serveWatch } from './watch.js';

// Routing of resource requests and the read verbs (get, list, watch), as apiserver pkg/endpoints/handlers/get.go
// serves them: JSON, or a meta.k8s.io Table when the Accept header asks for one (kubectl get).

export type { Reply, RestContext } from './rest-context.js';

const json = (code: number, value: unknown): Reply => ({
  code,
  body: JSON.stringify(value),
});

/** Answers one resource request; a watch writes to `res` itself and returns undefined. */
export function serveResource(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  body: string,
  ctx: RestContext,
): Reply | undefined {
  const r = ctx.store.resources.lookup(info.group, info.version, info.resource ?? '');
  if (!r || info.extra) throw pathNotFound();
  if (info.subresource !== undefined && (info.subresource !== 'status' || !r.subresources.status)) throw pathNotFound();
  const url = new URL(req.url ?? '/', 'https://localhost');
  const namespace = r.namespaced ? info.namespace : undefined;
  // A namespaced resource addressed by name needs its namespace; /api/v1/pods/x is no path kube-apiserver serves.
  if (r.namespaced && info.name !== undefined && namespace === undefined) throw pathNotFound();
  const table = tableVersion(req.headers.accept);
  const includeObject = (url.searchParams.get('includeObject') ?? 'Metadata') as IncludeObject;
  const encodeOne = (o: KubeObject) =>
    table
      ? JSON.stringify(withTableVersion(toTable(r, [o], { includeObject, now: ctx.store.now() }), table))
      : ctx.store.objects.serialized(o);

  switch (info.verb) {
    case 'get': {
      const object = ctx.store.get(r, info.name ?? '', namespace);
      if (!object) throw notFound(r, info.name ?? '');
      return { code: 200, body: encodeOne(object) };
    }
    case 'list':
      return list(r, namespace, url.searchParams, ctx, table, includeObject);
    case 'watch': {
      const p = url.searchParams;
      const timeout = p.get('timeoutSeconds');
      serveWatch(
        res,
        {
          resource: r,
          namespace,
          matches: selectorsOf(r, p),
          resourceVersion: p.get('resourceVersion') ?? undefined,
          allowBookmarks: p.get('allowWatchBookmarks') === 'true',
          sendInitialEvents: p.get('sendInitialEvents') === 'true',
          timeoutSeconds: timeout ? Number(timeout) : undefined,
          encode: encodeOne,
        },
        ctx,
      );
      return undefined;
    }
    case 'create':
      if (info.name !== undefined) throw methodNotAllowed();
      return writeVerb(req, info, r, namespace, body, ctx);
    case 'update':
    case 'patch':
      // PUT and PATCH address one object; kube-apiserver registers no such route on a collection.
      if (info.name === undefined) throw methodNotAllowed();
      return writeVerb(req, info, r, namespace, body, ctx);
    case 'delete':
    case 'deletecollection':
      return writeVerb(req, info, r, namespace, body, ctx);
    default:
      throw methodNotAllowed();
  }
}

function selectorsOf(r: ResourceInfo, p: URLSearchParams): Matcher {
  const labels = labelSelectorMatcher(p.get('labelSelector'));
  const fields = fieldSelectorMatcher(parseFieldSelector(p.get('fieldSelector'), r.resource));
  if (labels && fields) return (o) => labels(o) && fields(o);
  return labels ?? fields ?? (() => true);
}

function withTableVersion<T extends { apiVersion: string }>(t: T, version: 'v1' | 'v1beta1'): T {
  return { ...t, apiVersion: `meta.k8s.io/${version}` };
}

interface ContinueToken {
  rv: number;
  start: string;
}

// storage/etcd3 continue tokens: base64 of {"v":"meta.k8s.io/v1","rv":<list RV>,"start":"<next key>"}.
function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<ContinueToken> & {
      v?: string;
    };
    if (parsed.v === 'meta.k8s.io/v1' && typeof parsed.rv === 'number' && typeof parsed.start === 'string') {
      return { rv: parsed.rv, start: parsed.start };
    }
  } catch {
    // fall through to the BadRequest below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

// etcd3/store.go: a continue token whose revision has been compacted is 410 Expired with this message.
const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function list(
  r: ResourceInfo,
  namespace: string | undefined,
  p: URLSearchParams,
  ctx: RestContext,
  table: 'v1' | 'v1beta1' | undefined,
  includeObject: IncludeObject,
): Reply {
  const { store } = ctx;
  const matches = selectorsOf(r, p);
  const limit = Number(p.get('limit') ?? 0);
  const token = p.get('continue');
  let listRv = store.objects.resourceVersion;
  let start: string | undefined;
  if (token) {
    const decoded = decodeContinue(token);
    start = decoded.start;
    // etcd3/errors.go handleCompactedErrorForPaging: the 410 carries a token with rv -1, which continues at the
    // latest revision (an inconsistent remainder) for a client that accepts that.
    if (decoded.rv !== -1 && decoded.rv < store.objects.etcdCompactedRevision) {
      throw new ApiStatusError(410, 'Expired', EXPIRED_CONTINUE, undefined, { continue: encodeContinue(-1, start) });
    }
    if (decoded.rv !== -1) listRv = decoded.rv;
  }
  const items: KubeObject[] = [];
  let next: string | undefined;
  for (const o of candidates(r, namespace, p, ctx, start)) {
    if (!matches(o)) continue;
    if (limit > 0 && items.length === limit) {
      next = `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
      break;
    }
    items.push(o);
  }
  const metadata = {
    resourceVersion: String(listRv),
    ...(next ? { continue: encodeContinue(listRv, next) } : {}),
  };
  if (table) {
    const objects = items.map((o) => store.asVersion(r, o));
    return json(
      200,
      withTableVersion(
        toTable(r, objects, {
          includeObject,
          now: store.now(),
          listMeta: metadata,
        }),
        table,
      ),
    );
  }
  const apiVersion = groupVersion(r);
  const encoded = items.map((o) => store.objects.serialized(o.apiVersion === apiVersion ? o : store.asVersion(r, o)));
  const head = JSON.stringify({ kind: `${r.kind}List`, apiVersion, metadata });
  return {
    code: 200,
    body: `${head.slice(0, -1)},"items":[${encoded.join(',')}]}`,
  };
}

// Pods selected by `spec.nodeName=<node>` come from the node index (what kubelets and drains list), the rest by scan.
function candidates(
  r: ResourceInfo,
  namespace: string | undefined,
  p: URLSearchParams,
  ctx: RestContext,
  start: string | undefined,
): Iterable<KubeObject> {
  const node = /(?:^|,)spec\.nodeName==?([^,]*)(?:,|$)/.exec(p.get('fieldSelector') ?? '')?.[1];
  if (r.resource === 'pods' && !r.group && node !== undefined && node !== '') {
    const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
    return ctx.store.objects
      .podsOnNode(node)
      .filter((o) => (namespace === undefined || o.metadata.namespace === namespace) && (!start || keyOf(o) >= start))
      .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  }
  return ctx.store.objects.list(groupResource(r), namespace, start);
}
