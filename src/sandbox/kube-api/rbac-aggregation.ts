// ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller does it
// (kubernetes/kubernetes v1.32 pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go,
// `syncClusterRole`): a ClusterRole with an aggregationRule gets, as its rules, the rules of every other ClusterRole
// that one of its clusterRoleSelectors selects, selector by selector, the selected roles by name, each rule once.
// The authorizer then reads the aggregated role's stored rules like any other's (rbac.ts): aggregation is a
// controller's write, not something RBAC evaluates. garbage-collector.ts runs it after every ClusterRole change.
import { selects } from './pdb.js';
import type { PolicyRule, Role } from './rbac.js';

// equality.Semantic.DeepEqual: a missing list and an empty one are the same rule.
const ruleKey = (r: PolicyRule) =>
  JSON.stringify([r.verbs ?? [], r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);

/** The rules `role` aggregates from `clusterRoles`, or undefined when it has no aggregationRule (its rules are its own). */
export function aggregatedRules(role: Role, clusterRoles: readonly Role[]): PolicyRule[] | undefined {
  if (!role.aggregationRule) return undefined;
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const selector of role.aggregationRule.clusterRoleSelectors ?? []) {
    const selected = clusterRoles
      .filter((r) => r.metadata.name !== role.metadata.name && selects(selector, r.metadata.labels ?? {}))
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    for (const r of selected) {
      for (const rule of r.rules ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  return rules;
}

/** Whether the stored rules already are the aggregate (the controller then writes nothing). */
export const sameRules = (a: readonly PolicyRule[] | null | undefined, b: readonly PolicyRule[]) =>
  JSON.stringify((a ?? []).map(ruleKey)) === JSON.stringify(b.map(ruleKey));
