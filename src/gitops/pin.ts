// `pin`'s pure core: each unit's plan (the same `plan` that `plan` and `upgrade` make, on the unit's manifests) →
// what is written where → the files changed. The command reads the files, the images and the AMIs, and writes.
// `upgrade --apply-by git` and a GitOps syncer reuse `buildUnits` (which file decides which class's terms) and this.
import type { AmiFamily } from '../ami/families.js';
import { imageNameFields, type ResolvedAmi } from '../ami/verify.js';
import type { Budget } from '../karpenter/budgets.js';
import type { Inventory } from '../karpenter/views.js';
import { plan, type Check, type Plan, type PlanOptions, type TargetAmi } from '../plan/plan.js';
import type { AmiSpec } from '../plan/ami-spec.js';
import type { WindowRequest } from '../stages/request.js';
import type { Decider, Unit } from './objects.js';
import { classWrites, windowWrites, type UnitPlan } from './pin-writes.js';
import { fileChanges, type FileChange, type Write } from './writes.js';
import type { YamlFile } from './yaml-file.js';

export interface ClassPin {
  unit: string;
  name: string;
  family: AmiFamily;
  changed: boolean;
  before: AmiSpec;
  after: AmiSpec;
  targets: TargetAmi[];
  /** The releases its terms select now: an alias's version, or the releases of the images EC2 or a cluster lists. */
  from: string[];
  /** The files that decide its terms and amiFamily: the ones changed for it. */
  files: string[];
}

export interface PoolWindows {
  unit: string;
  name: string;
  changed: boolean;
  before: Budget[] | null;
  after: Budget[];
  files: string[];
}

export interface UnitCheck extends Check {
  unit: string;
}

export interface PinResult {
  units: Array<{ label: string; kind: Unit['kind'] }>;
  classes: ClassPin[];
  pools: PoolWindows[];
  files: FileChange[];
  /** Every unit's checks, the unit named; errors first. */
  checks: UnitCheck[];
  blocked: boolean;
  plans: Plan[];
}

export interface PinInput {
  files: ReadonlyMap<string, YamlFile>;
  units: readonly Unit[];
  inventories: readonly Inventory[];
  amis: readonly ResolvedAmi[];
  options: PlanOptions;
  /** `--window`/`--exclude`: the NodePools' budgets too. */
  windows?: WindowRequest;
  /** Pin the terms (false: `--window` alone writes only budgets). */
  terms: boolean;
  now: Date;
}

export function pinChanges(input: PinInput): PinResult {
  const unitPlans: UnitPlan[] = !input.terms
    ? []
    : input.units.map((unit, i) => {
        const inventory = input.inventories[i]!;
        return { unit, plan: plan(inventory, input.amis, input.options, input.now), nodeClasses: inventory.nodeClasses };
      });
  const termWrites = unitPlans.flatMap(classWrites);
  const budgetWrites = input.windows !== undefined ? input.units.flatMap((u) => windowWrites(u, input.windows!, input.now)) : [];
  const checks = unitPlans.flatMap(({ unit, plan: p }) => p.checks.map((c) => ({ ...c, unit: unit.label })));
  const blocked = checks.some((c) => c.level === 'error');
  // A plan with an error-level check writes nothing, as `upgrade` applies nothing.
  const files = blocked ? [] : fileChanges(input.files, [...termWrites, ...budgetWrites]);
  return {
    units: input.units.map((u) => ({ label: u.label, kind: u.kind })),
    classes: unitPlans.flatMap((up) => classPins(up, termWrites)),
    pools: budgetWrites.map(poolWindows),
    files,
    checks: [...checks.filter((c) => c.level === 'error'), ...checks.filter((c) => c.level === 'warning'), ...checks.filter((c) => c.level === 'info')],
    blocked,
    plans: unitPlans.map((u) => u.plan),
  };
}

const fileOf = (d: Decider | undefined): string[] =>
  d === undefined ? [] : d.kind === 'node' ? [d.at.file] : d.kind === 'op' ? [d.file] : d.kind === 'absent' && d.map !== undefined ? [d.map.file] : [];

function classPins({ unit, plan: p }: UnitPlan, writes: readonly Write[]): ClassPin[] {
  return p.nodeClasses.map((c) => {
    const by = `${unit.label}: ec2nodeclass/${c.name}`;
    const mine = writes.filter((w) => w.by === by && w.changed);
    const terms = mine.find((w) => w.field === 'amiSelectorTerms');
    const after = terms !== undefined ? { ...c.after, amiSelectorTerms: terms.value as AmiSpec['amiSelectorTerms'] } : c.after;
    const files = mine.flatMap((w) => (w.decider.kind === 'absent' && w.terms !== undefined ? fileOf(w.terms) : fileOf(w.decider)));
    const from = [...c.before.amiSelectorTerms.flatMap((t) => (t.alias !== undefined ? [t.alias.split('@')[1] ?? t.alias] : [])), ...c.current.flatMap((a) => (a.name !== undefined ? [imageNameFields(c.family, a.name)?.release ?? a.name] : []))];
    return { unit: unit.label, name: c.name, family: c.family, changed: c.changed, before: c.before, after, targets: c.targets, from: [...new Set(from)], files: [...new Set(files)] };
  });
}

function poolWindows(w: Write): PoolWindows {
  const [unit, name] = w.by.split(': nodepool/') as [string, string];
  return { unit, name, changed: w.changed, before: (w.current as Budget[] | undefined) ?? null, after: w.value as unknown as Budget[], files: fileOf(w.decider) };
}
