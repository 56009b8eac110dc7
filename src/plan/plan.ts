// Pure planning for `plan` and `upgrade`: inventory + resolved AMIs + options → what each EC2NodeClass's AMI terms
// become, which NodeClaims drift as a result, how fast the budgets let them go, and the preflight checks. No I/O:
// `now` is an argument (budgets), and the command resolves the AMIs `neededAmiQueries` asks for before calling this.
import type { ResolvedAmi } from '../ami/verify.js';
import type { Inventory } from '../karpenter/views.js';
import type { PinMode } from './plan-options.js';
import { budgetChecks, heldChecks, podBlockerChecks } from './blockers.js';
import { LEVELS, check, latestAliasChecks, type Check } from './checks.js';
import { nodeClassPlan, type NodeClassPlan } from './pin.js';
import { nodePoolPlan, type NodePoolPlan } from './pools.js';
import type { PlanSource } from './promotion.js';
import { nodeClassesInScope, amiNeeds } from './targets.js';
import { CLUSTER_CHECKS, versionChecks } from './versions.js';
import type { PlanOptions } from './plan-options.js';
import { inOrder } from '../text/order.js';

export type { Check, CheckCode, CheckLevel } from './checks.js';
export type { NodeClassPlan, TargetAmi } from './pin.js';
export type { AmiSpec } from './ami-spec.js';
export type { PlanOptions } from './plan-options.js';
export type { NodePoolPlan } from './pools.js';
export type { PlanSource } from './promotion.js';

export interface Plan {
  kubernetesVersion: string;
  controlPlaneVersion: string;
  pin: PinMode;
  release: string;
  fieldManager: 'karp-drift';
  forceConflicts: boolean;
  /** Where the target AMIs came from (absent only in plans made without a command, i.e. tests). */
  source?: PlanSource;
  nodeClasses: NodeClassPlan[];
  nodePools: NodePoolPlan[];
  /** Errors first, then warnings, then info; in the order found within a level. */
  checks: Check[];
  /** Some check is an error: nothing may be applied. */
  blocked: boolean;
}

export function plan(inventory: Inventory, amis: readonly ResolvedAmi[], options: PlanOptions, now: Date): Plan {
  const checks: Check[] = [];
  const explicit = options.nodeClasses !== undefined && options.nodeClasses.length > 0;
  const scope = nodeClassesInScope(inventory, options.nodeClasses);
  for (const name of scope.missing) {
    const known = inventory.nodeClasses.map((c) => c.name).join(', ') || '(none)';
    checks.push(
      check(
        'NODECLASS-NOT-FOUND',
        'error',
        `--nodeclass ${name}: no EC2NodeClass named ${name}`,
        [`EC2NodeClasses: ${known}`],
        'name an existing EC2NodeClass, or omit --nodeclass to plan them all',
      ),
    );
  }

  const nodeClasses: NodeClassPlan[] = [];
  for (const view of scope.nodeClasses) {
    const result = nodeClassPlan(view, amiNeeds(inventory, view.name), amis, { ...options, now }, explicit);
    checks.push(...result.checks);
    if (result.plan !== undefined) nodeClasses.push(result.plan);
  }

  const nodePools = inventory.nodePools
    .filter((p) => nodeClasses.some((c) => c.name === p.nodeClass))
    .sort((a, b) => inOrder(a.name, b.name))
    .map((pool) => {
      const targets = new Set(nodeClasses.find((c) => c.name === pool.nodeClass)!.targets.map((t) => t.id));
      const poolPlan = nodePoolPlan(pool, inventory, targets, now);
      checks.push(...budgetChecks(poolPlan, pool), ...heldChecks(poolPlan, inventory, pool, options.lock, now));
      return poolPlan;
    });
  checks.push(...podBlockerChecks(inventory, nodePools, now));

  const replaced = new Set(nodePools.flatMap((p) => p.drifting.flatMap((d) => (d.node !== undefined ? [d.node] : []))));
  const versions = versionChecks(inventory, options.to, options.pin, replaced, options.allowDowngrade);
  // Without a cluster there is no control plane or node to judge: those checks are not made, and pin says so.
  const unjudged: readonly string[] = options.withoutCluster === true ? CLUSTER_CHECKS : [];
  checks.push(...versions.filter((c) => !unjudged.includes(c.code)));
  checks.push(...latestAliasChecks(inventory, new Set(scope.nodeClasses.map((c) => c.name))));

  const sorted = LEVELS.flatMap((level) => checks.filter((c) => c.level === level));
  return {
    kubernetesVersion: options.to,
    controlPlaneVersion: inventory.controlPlane.minor,
    pin: options.pin,
    release: options.release,
    fieldManager: options.fieldManager,
    forceConflicts: options.forceConflicts ?? false,
    ...(options.source !== undefined ? { source: options.source } : {}),
    nodeClasses,
    nodePools,
    checks: sorted,
    blocked: sorted.some((c) => c.level === 'error'),
  };
}

/** The plan with more checks (a staged rollout's, from gates/coverage.ts): sorted and `blocked` as `plan` makes them. */
export function withChecks(p: Plan, extra: readonly Check[]): Plan {
  if (extra.length === 0) return p;
  const all = [...p.checks, ...extra];
  const sorted = LEVELS.flatMap((level) => all.filter((c) => c.level === level));
  return { ...p, checks: sorted, blocked: sorted.some((c) => c.level === 'error') };
}
