// The sandbox's RBAC authorizer against kube-apiserver's own tables: kubernetes/kubernetes v1.32
// plugin/pkg/auth/authorizer/rbac/rbac_test.go (TestAuthorizer, TestRuleMatches, at 90d6cfcf) and
// pkg/controller/clusterroleaggregation/clusterroleaggregation_controller_test.go (TestSyncClusterRole), plus the
// cases of evaluation_helpers.go that karp-drift's preflight turns on: resourceNames against a request without a name.
import { describe, expect, it } from 'vitest';
import { aggregatedRules } from '../../../src/sandbox/kube-api/rbac-aggregation.js';
import {
  authorize,
  forbiddenMessage,
  ruleAllows,
  staticPolicy,
  type Attributes,
  type PolicyRule,
  type Role,
  type RoleBinding,
} from '../../../src/sandbox/kube-api/rbac.js';

// rbac_test.go newRule: "verbs", "apiGroups", "resources", "nonResourceURLs", each comma-separated.
const newRule = (verbs: string, apiGroups: string, resources: string, urls: string): PolicyRule => ({
  verbs: verbs.split(','),
  apiGroups: apiGroups.split(','),
  resources: resources.split(','),
  nonResourceURLs: urls.split(','),
});
const clusterRole = (name: string, ...rules: PolicyRule[]): Role => ({ metadata: { name }, rules });
const subjects = (list: string[]) =>
  list.map((s) => {
    const [kind = '', name = ''] = s.split(/:(.*)/s);
    return { kind, name, ...(kind === 'ServiceAccount' ? {} : { apiGroup: 'rbac.authorization.k8s.io' }) };
  });
const clusterRoleBinding = (role: string, ...who: string[]): RoleBinding => ({
  metadata: { name: `${role}-binding` },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  subjects: subjects(who),
});
const roleBinding = (namespace: string, role: string, kind: 'Role' | 'ClusterRole', ...who: string[]): RoleBinding => ({
  metadata: { name: `${role}-binding`, namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
  subjects: subjects(who),
});

// defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup}: a resource request without a name.
const attrs = (user: string, groups: string, verb: string, resource: string, subresource: string, namespace: string, apiGroup: string): Attributes => ({
  user: { name: user, groups: groups.split(',') },
  verb,
  resourceRequest: true,
  resource,
  subresource,
  namespace,
  apiGroup,
});
const url = (verb: string, path: string, who: { name?: string; groups?: string[] }): Attributes => ({
  user: { name: who.name ?? '', groups: who.groups ?? [] },
  verb,
  resourceRequest: false,
  path,
});

describe('TestAuthorizer', () => {
  const cases: Array<{
    name: string;
    policy: Parameters<typeof staticPolicy>[0];
    pass: Attributes[];
    fail: Attributes[];
  }> = [
    {
      name: 'a ClusterRole bound in one namespace',
      policy: {
        clusterRoles: [clusterRole('admin', newRule('*', '*', '*', '*'))],
        roleBindings: [roleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
      },
      pass: [
        attrs('admin', '', 'get', 'Pods', '', 'ns1', ''),
        attrs('admin', '', 'watch', 'Pods', '', 'ns1', ''),
        attrs('admin', 'group1', 'watch', 'Foobar', '', 'ns1', ''),
        attrs('joe', 'admins', 'watch', 'Foobar', '', 'ns1', ''),
        attrs('joe', 'group1,admins', 'watch', 'Foobar', '', 'ns1', ''),
      ],
      fail: [
        attrs('admin', '', 'GET', 'Pods', '', 'ns2', ''),
        attrs('admin', '', 'GET', 'Nodes', '', '', ''),
        attrs('admin', 'admins', 'GET', 'Pods', '', 'ns2', ''),
        attrs('admin', 'admins', 'GET', 'Nodes', '', '', ''),
      ],
    },
    {
      name: 'non-resource URLs',
      policy: {
        clusterRoles: [
          clusterRole('non-resource-url-getter', newRule('get', '', '', '/apis')),
          clusterRole('non-resource-url', newRule('*', '', '', '/apis')),
          clusterRole('non-resource-url-prefix', newRule('get', '', '', '/apis/*')),
        ],
        clusterRoleBindings: [
          clusterRoleBinding('non-resource-url-getter', 'User:foo', 'Group:bar'),
          clusterRoleBinding('non-resource-url', 'User:admin', 'Group:admin'),
          clusterRoleBinding('non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
        ],
      },
      pass: [
        url('get', '/apis', { name: 'foo' }),
        url('get', '/apis', { groups: ['bar'] }),
        url('get', '/apis', { name: 'admin' }),
        url('get', '/apis', { groups: ['admin'] }),
        url('watch', '/apis', { name: 'admin' }),
        url('watch', '/apis', { groups: ['admin'] }),
        url('get', '/apis/v1', { name: 'prefixed' }),
        url('get', '/apis/v1', { groups: ['prefixed'] }),
        url('get', '/apis/v1/foobar', { name: 'prefixed' }),
        url('get', '/apis/v1/foorbar', { groups: ['prefixed'] }),
      ],
      fail: [
        url('watch', '/apis', { name: 'foo' }),
        url('watch', '/apis', { groups: ['bar'] }),
        url('get', '/api/v1', { name: 'foo' }),
        url('get', '/api/v1', { groups: ['bar'] }),
        url('get', '/api/v1', { name: 'admin' }),
        url('get', '/api/v1', { groups: ['admin'] }),
        url('get', '/api/v1', { name: 'prefixed' }),
        url('get', '/api/v1', { groups: ['prefixed'] }),
      ],
    },
    {
      name: 'a resource rule does not cover its subresources',
      policy: {
        clusterRoles: [clusterRole('admin', newRule('*', '*', 'pods', '*'))],
        roleBindings: [roleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
      },
      pass: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
      fail: [attrs('admin', '', 'get', 'pods', 'status', 'ns1', '')],
    },
    {
      name: 'resource/subresource and */subresource',
      policy: {
        clusterRoles: [clusterRole('admin', newRule('*', '*', 'pods/status', '*'), newRule('*', '*', '*/scale', '*'))],
        roleBindings: [roleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
      },
      pass: [
        attrs('admin', '', 'get', 'pods', 'status', 'ns1', ''),
        attrs('admin', '', 'get', 'pods', 'scale', 'ns1', ''),
        attrs('admin', '', 'get', 'deployments', 'scale', 'ns1', ''),
        attrs('admin', '', 'get', 'anything', 'scale', 'ns1', ''),
      ],
      fail: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
    },
  ];
  it.each(cases)('$name', ({ policy, pass, fail }) => {
    const resolver = staticPolicy(policy);
    expect(pass.filter((a) => !authorize(resolver, a).allowed)).toEqual([]);
    expect(fail.filter((a) => authorize(resolver, a).allowed)).toEqual([]);
  });
});

describe('TestRuleMatches', () => {
  const resource = (verb: string, group: string, r: string, subresource = '', name = ''): Attributes => ({
    user: { name: '', groups: [] },
    verb,
    resourceRequest: true,
    apiGroup: group,
    resource: r,
    subresource,
    name,
  });
  const nonResource = (verb: string, path: string) => url(verb, path, {});
  const grid = (rule: PolicyRule, expected: boolean[]) => ({ rule, expected });
  const eight = (group1: string, group2: string, r1: string, r2: string) => [
    resource('verb1', group1, r1),
    resource('verb1', group2, r1),
    resource('verb1', group1, r2),
    resource('verb1', group2, r2),
    resource('verb2', group1, r1),
    resource('verb2', group2, r1),
    resource('verb2', group1, r2),
    resource('verb2', group2, r2),
  ];
  const requests = eight('group1', 'group2', 'resource1', 'resource2');
  it.each([
    ['star verb, exact match other', grid({ verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] }, [true, false, false, false, true, false, false, false])],
    ['star group, exact match other', grid({ verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] }, [true, true, false, false, false, false, false, false])],
    ['star resource, exact match other', grid({ verbs: ['verb1'], apiGroups: ['group1'], resources: ['*'] }, [true, false, true, false, false, false, false, false])],
    ['tuple expansion', grid({ verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] }, [true, true, true, true, true, true, true, true])],
  ])('%s', (_name, { rule, expected }) => {
    expect(requests.map((r) => ruleAllows(r, rule))).toEqual(expected);
  });

  it('subresource expansion', () => {
    const rule: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] };
    const r = [
      resource('verb1', 'group1', 'resource1', 'subresource1'),
      resource('verb1', 'group2', 'resource1', 'subresource2'),
      resource('verb1', 'group1', 'resource2', 'subresource1'),
      resource('verb1', 'group2', 'resource2', 'subresource1'),
      resource('verb2', 'group1', 'resource1', 'subresource1'),
      resource('verb2', 'group2', 'resource1', 'subresource2'),
      resource('verb2', 'group1', 'resource2', 'subresource1'),
      resource('verb2', 'group2', 'resource2', 'subresource1'),
    ];
    expect(r.map((a) => ruleAllows(a, rule))).toEqual([true, false, false, false, true, false, false, false]);
  });

  const paths = ['/foo', '/foo/bar', '/foo/baz', '/foo/bar/one', '/foo/baz/one'];
  it.each([
    ['star nonresource, exact match other', { verbs: ['verb1'], nonResourceURLs: ['*'] }, [true, true, true, true, true], [false, false, false, false, false]],
    ['star verb, exact nonresource', { verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] }, [true, false, false, true, false], [true, false, false, true, false]],
  ])('%s', (_name, rule, verb1, verb2) => {
    expect(paths.map((p) => ruleAllows(nonResource('verb1', p), rule))).toEqual(verb1);
    expect(paths.map((p) => ruleAllows(nonResource('verb2', p), rule))).toEqual(verb2);
  });

  it('star nonresource subpath', () => {
    const rule = { verbs: ['verb1'], nonResourceURLs: ['/foo/*'] };
    const all = [...paths, '/notfoo', '/notfoo/bar', '/notfoo/baz', '/notfoo/bar/one', '/notfoo/baz/one'];
    expect(all.map((p) => ruleAllows(nonResource('verb1', p), rule))).toEqual([false, true, true, true, true, false, false, false, false, false]);
  });

  // evaluation_helpers.go ResourceNameMatches: an empty list matches every name (none included); a non-empty list
  // only its names, so never a list, a watch, a create, or an access review without a name.
  it.each([
    ['no resourceNames, no name', undefined, '', true],
    ['no resourceNames, a name', undefined, 'karp-drift', true],
    ['resourceNames, that name', ['karp-drift'], 'karp-drift', true],
    ['resourceNames, another name', ['karp-drift'], 'other', false],
    ['resourceNames, no name (list, watch, create, an unnamed review)', ['karp-drift'], '', false],
  ])('%s', (_name, resourceNames, name, expected) => {
    const rule: PolicyRule = { verbs: ['get', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], ...(resourceNames ? { resourceNames } : {}) };
    expect(ruleAllows(resource('update', 'coordination.k8s.io', 'leases', '', name), rule)).toBe(expected);
  });

  it('verbs, groups and resources match case-sensitively; the core group is "" and matches only ""', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
    expect([resource('get', '', 'pods'), resource('GET', '', 'pods'), resource('get', '', 'Pods'), resource('get', 'apps', 'pods')].map((a) => ruleAllows(a, rule))).toEqual([true, false, false, false]);
  });
});

describe('subjects, roles and reasons (rule.go VisitRulesFor, appliesTo, the describers)', () => {
  const leases = clusterRole('lock', { verbs: ['get', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['karp-drift'] });
  const lease = (user: string, groups: string[], namespace: string, name = 'karp-drift'): Attributes => ({
    user: { name: user, groups },
    verb: 'update',
    resourceRequest: true,
    apiGroup: 'coordination.k8s.io',
    resource: 'leases',
    name,
    namespace,
  });

  it('names the binding, the role and the subject that allowed it, ClusterRoleBindings before RoleBindings', () => {
    const policy = staticPolicy({
      clusterRoles: [leases],
      clusterRoleBindings: [clusterRoleBinding('lock', 'Group:karp-drift')],
      roleBindings: [roleBinding('kube-system', 'lock', 'ClusterRole', 'User:alice')],
    });
    expect(authorize(policy, lease('bob', ['karp-drift'], 'kube-system'))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "lock-binding" of ClusterRole "lock" to Group "karp-drift"',
    });
    expect(authorize(policy, lease('alice', [], 'kube-system'))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "lock-binding/kube-system" of ClusterRole "lock" to User "alice"',
    });
    // A RoleBinding grants nothing outside its namespace, nor at the cluster scope.
    expect(authorize(policy, lease('alice', [], 'default')).allowed).toBe(false);
    expect(authorize(policy, lease('alice', [], '')).allowed).toBe(false);
    expect(authorize(policy, lease('bob', ['karp-drift'], 'kube-system', '')).allowed).toBe(false);
  });

  it('matches ServiceAccounts by their username, a RoleBinding defaulting the subject namespace to its own', () => {
    const policy = staticPolicy({
      roles: [{ metadata: { name: 'lock', namespace: 'kube-system' }, rules: leases.rules ?? [] }],
      roleBindings: [
        { ...roleBinding('kube-system', 'lock', 'Role'), subjects: [{ kind: 'ServiceAccount', name: 'karp-drift' }] },
      ],
    });
    expect(authorize(policy, lease('system:serviceaccount:kube-system:karp-drift', [], 'kube-system'))).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "lock-binding/kube-system" of Role "lock" to ServiceAccount "karp-drift/kube-system"',
    });
    expect(authorize(policy, lease('system:serviceaccount:default:karp-drift', [], 'kube-system')).allowed).toBe(false);
  });

  it('denies with the errors met resolving roles that are not there (utilerrors.NewAggregate)', () => {
    const one = staticPolicy({ clusterRoleBindings: [clusterRoleBinding('gone', 'User:bob')] });
    expect(authorize(one, lease('bob', [], 'kube-system'))).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
    });
    const two = staticPolicy({
      clusterRoleBindings: [clusterRoleBinding('gone', 'User:bob')],
      roleBindings: [roleBinding('kube-system', 'missing', 'Role', 'User:bob')],
    });
    expect(authorize(two, lease('bob', [], 'kube-system')).reason).toBe(
      'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "missing" not found]',
    );
    expect(authorize(staticPolicy({}), lease('bob', [], 'kube-system'))).toEqual({ allowed: false, reason: '' });
  });

  it("words a refusal as responsewriters' forbiddenMessage", () => {
    expect(forbiddenMessage(lease('karp-drift-test', [], 'kube-system'))).toBe(
      'User "karp-drift-test" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"',
    );
    expect(forbiddenMessage({ ...lease('u', [], ''), verb: 'patch', resource: 'nodes', apiGroup: '', subresource: 'status' })).toBe(
      'User "u" cannot patch resource "nodes/status" in API group "" at the cluster scope',
    );
    expect(forbiddenMessage(url('get', '/apis', { name: 'u' }))).toBe('User "u" cannot get path "/apis"');
  });
});

describe('TestSyncClusterRole (aggregation)', () => {
  const hammer: PolicyRule[] = [
    { verbs: ['hammer'], resources: ['nails'] },
    { verbs: ['hammer'], resources: ['wedges'] },
  ];
  const chisel: PolicyRule[] = [{ verbs: ['chisel'], resources: ['mortises'] }];
  const saw: PolicyRule[] = [{ verbs: ['saw'], resources: ['boards'] }];
  const role = (name: string, labels: Record<string, string>, rules: PolicyRule[]): Role => ({ metadata: { name, labels }, rules });
  const combined = (selectors: Array<Record<string, string>>, ...rules: PolicyRule[][]): Role => ({
    metadata: { name: 'combined' },
    aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) },
    rules: rules.flat(),
  });
  it.each([
    ['remove dead rules', [role('hammer', { foo: 'bar' }, hammer), combined([{ foo: 'bar' }], saw)], hammer],
    ['strip rules', [role('hammer', { foo: 'not-bar' }, hammer), combined([{ foo: 'bar' }], hammer)], []],
    [
      'select properly and put in order',
      [role('hammer', { foo: 'bar' }, hammer), role('chisel', { foo: 'bar' }, chisel), role('saw', { foo: 'not-bar' }, saw), combined([{ foo: 'bar' }])],
      [...chisel, ...hammer],
    ],
    [
      'select properly with multiple selectors',
      [role('hammer', { foo: 'bar' }, hammer), role('chisel', { foo: 'bar' }, chisel), role('saw', { foo: 'not-bar' }, saw), combined([{ foo: 'bar' }, { foo: 'not-bar' }])],
      [...chisel, ...hammer, ...saw],
    ],
    [
      'select properly remove duplicates',
      [
        role('hammer', { foo: 'bar' }, hammer),
        role('chisel', { foo: 'bar' }, chisel),
        role('saw', { foo: 'bar' }, saw),
        role('other-saw', { foo: 'not-bar' }, saw),
        combined([{ foo: 'bar' }, { foo: 'not-bar' }]),
      ],
      [...chisel, ...hammer, ...saw],
    ],
  ] as Array<[string, Role[], PolicyRule[]]>)('%s', (_name, roles, expected) => {
    expect(aggregatedRules(roles.find((r) => r.metadata.name === 'combined')!, roles)).toEqual(expected);
  });

  it('leaves a role without an aggregationRule alone', () => {
    expect(aggregatedRules(role('hammer', {}, hammer), [])).toBeUndefined();
  });
});
