// RBAC as kube-apiserver's authorizer decides it, rule for rule (kubernetes/kubernetes v1.32, the same at 01aa0f3f):
// plugin/pkg/auth/authorizer/rbac/rbac.go (`Authorize`, `RuleAllows`), pkg/apis/rbac/v1/evaluation_helpers.go
// (`VerbMatches`, `APIGroupMatches`, `ResourceMatches`, `ResourceNameMatches`, `NonResourceURLMatches`) and
// pkg/registry/rbac/validation/rule.go (`VisitRulesFor`, `appliesTo`, the binding describers). Pure: the roles and
// bindings come in through `RbacPolicy`, as the authorizer reads them from its listers.
// Two facts karp-drift's preflight depends on: a rule with resourceNames never matches a request without a name
// (a list, a watch, a create, or an access review that names nothing), and verbs, groups and resources match exactly
// (case included) or by `*`.

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface RoleBinding {
  metadata: { name?: string; namespace?: string };
  subjects?: Subject[];
  roleRef: RoleRef;
}

export interface Role {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: unknown[] } | null;
}

/** Who sent the request, as the authenticator made it (user.Info): name and groups. */
export interface UserInfo {
  name: string;
  groups: string[];
}

/** authorizer.AttributesRecord: what a request (or an access review) asks to do. */
export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  /** Empty for lists, watches, creates and reviews that name nothing: then no resourceNames rule matches. */
  name?: string;
  namespace?: string;
  /** Non-resource requests: the URL path. */
  path?: string;
}

/** What the authorizer reads: its listers of roles and bindings. A role that is not there is `undefined`. */
export interface RbacPolicy {
  clusterRoleBindings(): RoleBinding[];
  roleBindings(namespace: string): RoleBinding[];
  clusterRole(name: string): Role | undefined;
  role(namespace: string, name: string): Role | undefined;
}

export interface Decision {
  allowed: boolean;
  /** `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, or the errors met on the way. */
  reason: string;
}

const ALL = '*';

export const verbMatches = (rule: PolicyRule, verb: string) => rule.verbs.some((v) => v === ALL || v === verb);

export const apiGroupMatches = (rule: PolicyRule, group: string) =>
  (rule.apiGroups ?? []).some((g) => g === ALL || g === group);

// `*/subresource` matches that subresource of every resource; `resource/subresource` only that pair; a plain
// resource never matches a request for one of its subresources.
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (r) =>
      r === ALL ||
      r === combinedResource ||
      (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)),
  );
}

// An empty list matches every name, a missing one included; a non-empty list only the names in it, never "".
export const resourceNameMatches = (rule: PolicyRule, name: string) =>
  (rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(name);

export const nonResourceURLMatches = (rule: PolicyRule, path: string) =>
  (rule.nonResourceURLs ?? []).some(
    (u) => u === ALL || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))),
  );

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (a.resourceRequest) {
    const subresource = a.subresource ?? '';
    const combined = subresource ? `${a.resource ?? ''}/${subresource}` : (a.resource ?? '');
    return (
      verbMatches(rule, a.verb) &&
      apiGroupMatches(rule, a.apiGroup ?? '') &&
      resourceMatches(rule, combined, subresource) &&
      resourceNameMatches(rule, a.name ?? '')
    );
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path ?? '');
}

function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // A RoleBinding's ServiceAccount without a namespace is the binding's own namespace's.
      const saNamespace = subject.namespace || namespace;
      return saNamespace !== '' && user.name === `system:serviceaccount:${saNamespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

function roleRules(policy: RbacPolicy, ref: RoleRef, bindingNamespace: string): PolicyRule[] | Error {
  if (ref.kind === 'Role') {
    const role = policy.role(bindingNamespace, ref.name);
    return role ? (role.rules ?? []) : new Error(`role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
  }
  if (ref.kind === 'ClusterRole') {
    const role = policy.clusterRole(ref.name);
    return role ? (role.rules ?? []) : new Error(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
  }
  return new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
}

/** `RBACAuthorizer.Authorize`: ClusterRoleBindings first, then the RoleBindings of the request's namespace. */
export function authorize(policy: RbacPolicy, a: Attributes): Decision {
  const errors: string[] = [];
  const visit = (bindings: RoleBinding[], namespace: string): string | undefined => {
    for (const binding of bindings) {
      const index = (binding.subjects ?? []).findIndex((s) => appliesToUser(a.user, s, namespace));
      if (index < 0) continue;
      const rules = roleRules(policy, binding.roleRef, namespace);
      if (rules instanceof Error) {
        errors.push(rules.message);
        continue;
      }
      if (!rules.some((rule) => ruleAllows(a, rule))) continue;
      const subject = describeSubject(binding.subjects![index]!, namespace);
      const { kind, name } = binding.roleRef;
      const what = namespace
        ? `RoleBinding ${JSON.stringify(`${binding.metadata.name ?? ''}/${namespace}`)}`
        : `ClusterRoleBinding ${JSON.stringify(binding.metadata.name ?? '')}`;
      return `RBAC: allowed by ${what} of ${kind} ${JSON.stringify(name)} to ${subject}`;
    }
    return undefined;
  };
  const namespace = a.namespace ?? '';
  const allowedBy =
    visit(policy.clusterRoleBindings(), '') ?? (namespace ? visit(policy.roleBindings(namespace), namespace) : undefined);
  if (allowedBy) return { allowed: true, reason: allowedBy };
  // utilerrors.NewAggregate: one error as itself, several in brackets, duplicates once.
  const unique = [...new Set(errors)];
  const aggregate = unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
  return { allowed: false, reason: unique.length > 0 ? `RBAC: ${aggregate}` : '' };
}

/** NewTestRuleResolver's StaticRoles: a policy from lists, for tests and in-process callers. */
export function staticPolicy(objects: {
  roles?: Role[];
  roleBindings?: RoleBinding[];
  clusterRoles?: Role[];
  clusterRoleBindings?: RoleBinding[];
}): RbacPolicy {
  return {
    clusterRoleBindings: () => objects.clusterRoleBindings ?? [],
    roleBindings: (namespace) => (objects.roleBindings ?? []).filter((b) => b.metadata.namespace === namespace),
    clusterRole: (name) => (objects.clusterRoles ?? []).find((r) => r.metadata.name === name),
    role: (namespace, name) =>
      (objects.roles ?? []).find((r) => r.metadata.namespace === namespace && r.metadata.name === name),
  };
}

/**
 * responsewriters `forbiddenMessage`: what a 403 says after `<resource> "<name>" is forbidden: `, e.g. `User "x"
 * cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"`.
 */
export function forbiddenMessage(a: Attributes): string {
  const user = JSON.stringify(a.user.name);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${JSON.stringify(a.path ?? '')}`;
  const resource = a.subresource ? `${a.resource ?? ''}/${a.subresource}` : (a.resource ?? '');
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup ?? '')} ${scope}`;
}
