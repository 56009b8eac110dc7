// Authorization of every request and of every SelfSubjectAccessReview, so the sandbox enforces what it answers:
// kube-apiserver's chain as an EKS cluster without webhooks has it, the privileged-group authorizer (system:masters
// may do anything) and then RBAC (rbac.ts) over the roles and bindings the store holds. What a request asks is read
// from its path as apiserver's RequestInfoFactory reads it (request-info.ts), and a 403 says what kube-apiserver says.
import type { RequestInfo } from './request-info.js';
import { authorize, forbiddenMessage, type Attributes, type Decision, type RbacPolicy, type RoleBinding, type UserInfo } from './rbac.js';
import type { KubeStore } from './registry-store.js';
import type { Reply } from './rest-context.js';
import { invalid } from './status.js';
import { cause } from './strategies.js';
import { ApiStatusError } from './types.js';

const CLUSTER_ROLES = 'clusterroles.rbac.authorization.k8s.io';
const CLUSTER_ROLE_BINDINGS = 'clusterrolebindings.rbac.authorization.k8s.io';
const ROLES = 'roles.rbac.authorization.k8s.io';
const ROLE_BINDINGS = 'rolebindings.rbac.authorization.k8s.io';

/** The authorizer's listers, over the store (what the informers of kube-apiserver's RBAC authorizer hold). */
export function storePolicy(store: KubeStore): RbacPolicy {
  const objects = store.objects;
  return {
    clusterRoleBindings: () => [...objects.list(CLUSTER_ROLE_BINDINGS)] as unknown as RoleBinding[],
    roleBindings: (namespace) => [...objects.list(ROLE_BINDINGS, namespace)] as unknown as RoleBinding[],
    clusterRole: (name) => objects.get(CLUSTER_ROLES, '', name),
    role: (namespace, name) => objects.get(ROLES, namespace, name),
  };
}

// kube-apiserver's authorizer union starts with authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup).
export function decide(store: KubeStore, a: Attributes): Decision {
  if (a.user.groups.includes('system:masters')) return { allowed: true, reason: '' };
  return authorize(storePolicy(store), a);
}

/**
 * What a request asks, as RequestInfoFactory reads it: a list or watch whose fieldSelector pins metadata.name names
 * that object (so a resourceNames rule can allow watching one object); a create names nothing, whatever its body says.
 */
export function requestAttributes(info: RequestInfo, url: URL, user: UserInfo): Attributes {
  if (!info.isResourceRequest) return { user, verb: info.verb, resourceRequest: false, path: info.path };
  let name = info.name ?? '';
  if (!name && (info.verb === 'list' || info.verb === 'watch')) {
    // fields.Selector.RequiresExactMatch: one of the selector's ANDed terms is `metadata.name=<name>` (or `==`).
    const terms = (url.searchParams.get('fieldSelector') ?? '').split(',').map((t) => /^metadata\.name==?(.+)$/.exec(t.trim()));
    name = terms.find((t) => t != null)?.[1] ?? '';
  }
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    apiGroup: info.group,
    resource: info.resource ?? '',
    subresource: info.subresource ?? '',
    name,
    namespace: info.namespace ?? '',
  };
}

/** responsewriters.Forbidden: 403 `Forbidden`, `<resource>.<group> "<name>" is forbidden: User "…" cannot …`. */
export function forbidden(a: Attributes, reason = ''): ApiStatusError {
  const why = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  if (!a.resourceRequest) return new ApiStatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  const resource = a.apiGroup ? `${a.resource ?? ''}.${a.apiGroup}` : (a.resource ?? '');
  const message = a.name ? `${resource} ${JSON.stringify(a.name)} is forbidden: ${why}` : `${resource} is forbidden: ${why}`;
  return new ApiStatusError(403, 'Forbidden', message, {
    ...(a.name ? { name: a.name } : {}),
    ...(a.apiGroup ? { group: a.apiGroup } : {}),
    kind: a.resource ?? '',
  });
}

interface ReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
}

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview (pkg/registry/authorization/selfsubjectaccessreview/rest.go): the
 * requesting user's own attributes through the same authorizer; exactly one of resourceAttributes and
 * nonResourceAttributes (else 422). `also` adds the sandbox's injected refusals (faults.forbid) for the admin.
 */
export function selfSubjectAccessReview(body: string, user: UserInfo, store: KubeStore, also: (verb: string, resource: string) => boolean): Reply {
  const review = JSON.parse(body || '{}') as { spec?: ReviewSpec };
  const spec = review.spec ?? {};
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if ((ra === undefined) === (nra === undefined)) {
    throw invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' }, '', [
      cause('FieldValueInvalid', 'spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'),
    ]);
  }
  const attributes: Attributes = ra
    ? {
        user,
        verb: ra.verb ?? '',
        resourceRequest: true,
        apiGroup: ra.group ?? '',
        resource: ra.resource ?? '',
        subresource: ra.subresource ?? '',
        name: ra.name ?? '',
        namespace: ra.namespace ?? '',
      }
    : { user, verb: nra?.verb ?? '', resourceRequest: false, path: nra?.path ?? '' };
  const decision = decide(store, attributes);
  const allowed = decision.allowed && (!ra || also(attributes.verb, attributes.resource ?? ''));
  const reason = !allowed && decision.allowed ? 'forbidden by the sandbox (faults.forbid)' : decision.reason;
  return {
    code: 201,
    body: JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed, ...(reason ? { reason } : {}) },
    }),
    headers: {},
  };
}

/**
 * authentication.k8s.io/v1 SelfSubjectReview (pkg/registry/authentication/selfsubjectreview/rest.go, `kubectl auth
 * whoami`): the requesting user as the authenticator saw it. Every authenticated user may create one
 * (system:basic-user, rbac-bootstrap.ts).
 */
export function selfSubjectReview(user: UserInfo): Reply {
  return {
    code: 201,
    body: JSON.stringify({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: user.name, groups: user.groups } },
    }),
    headers: {},
  };
}
