// The part of kube-apiserver's bootstrap RBAC policy (kubernetes/kubernetes v1.32
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go, `ClusterRoles` and `ClusterRoleBindings`) that a client
// like karp-drift meets: cluster-admin for system:masters, discovery and the health and version endpoints for
// everyone, and system:basic-user, which lets every authenticated user ask what it may do (SelfSubjectAccessReview).
// The API server stores these at start, so a user bound to nothing else can still discover the API and ask.
import type { KubeObject } from './types.js';

const RBAC = 'rbac.authorization.k8s.io';
const metadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

const clusterRole = (name: string, rules: object[]): KubeObject => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: metadata(name),
  rules,
});

const binding = (name: string, groups: string[]): KubeObject => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: metadata(name),
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
  subjects: groups.map((group) => ({ apiGroup: RBAC, kind: 'Group', name: group })),
});

const PUBLIC_INFO = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

export const BOOTSTRAP_CLUSTER_ROLES: KubeObject[] = [
  clusterRole('cluster-admin', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]),
  clusterRole('system:discovery', [
    { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', ...PUBLIC_INFO], verbs: ['get'] },
  ]),
  clusterRole('system:public-info-viewer', [{ nonResourceURLs: PUBLIC_INFO, verbs: ['get'] }]),
  clusterRole('system:basic-user', [
    { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ]),
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: KubeObject[] = [
  binding('cluster-admin', ['system:masters']),
  binding('system:discovery', ['system:authenticated']),
  binding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  binding('system:basic-user', ['system:authenticated']),
];
