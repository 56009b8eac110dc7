// What `pin` writes, decided from the plan of each unit: the amiSelectorTerms (and amiFamily) `plan` chose for each
// EC2NodeClass, and with `--window` the budgets that keep drift closed outside the windows on each NodePool. The
// same decisions `plan` and `upgrade` make; only where they are written differs. Pure.
import { RefusedError, UsageError } from '../errors.js';
import { DEFAULT_BUDGETS, type Budget } from '../karpenter/budgets.js';
import type { NodeClassView } from '../karpenter/views.js';
import type { NodeClassPlan, Plan } from '../plan/plan.js';
import { windowsRefusedOn } from '../stages/window-plan.js';
import type { WindowRequest } from '../stages/request.js';
import { windowBudgets } from '../windows/budgets.js';
import { FIELDS, valueAt, type BuiltObject, type Unit } from './objects.js';
import type { Plain } from './yaml-edit.js';
import type { Write } from './writes.js';

export interface UnitPlan {
  unit: Unit;
  plan: Plan;
  /** The classes as the plan read them (status.amis: what their terms select now). */
  nodeClasses: readonly NodeClassView[];
}

const objectOf = (unit: Unit, kind: BuiltObject['kind'], name: string) => unit.objects.find((o) => o.kind === kind && o.name === name)!;

/** The terms and amiFamily of every class the plan pins; unchanged ones too, so that a shared node's users agree. */
export function classWrites({ unit, plan, nodeClasses }: UnitPlan): Write[] {
  return plan.nodeClasses.flatMap((c) => {
    const o = objectOf(unit, 'EC2NodeClass', c.name);
    const by = `${unit.label}: ec2nodeclass/${c.name}`;
    const view = nodeClasses.find((v) => v.name === c.name);
    const terms = view === undefined ? c.after.amiSelectorTerms : alignedTerms(c, view);
    const writes: Write[] = [
      {
        field: 'amiSelectorTerms',
        decider: o.deciders.amiSelectorTerms!,
        value: terms as Plain,
        changed: c.changed && JSON.stringify(c.before.amiSelectorTerms) !== JSON.stringify(terms),
        current: valueAt(o.value, FIELDS.amiSelectorTerms),
        by,
      },
    ];
    if (c.after.amiFamily !== undefined) {
      writes.push({
        field: 'amiFamily',
        decider: o.deciders.amiFamily!,
        value: c.after.amiFamily,
        changed: c.after.amiFamily !== c.before.amiFamily,
        current: valueAt(o.value, FIELDS.amiFamily),
        by,
        terms: o.deciders.amiSelectorTerms!,
      });
    }
    return writes;
  });
}

/**
 * The new id or name terms in the order of the old ones they replace, matched by architecture (and variant), so
 * that a comment beside a term (`- id: ami-0a1 # arm64`) still describes it. Terms are ORed: order means nothing
 * to Karpenter.
 */
function alignedTerms(c: NodeClassPlan, view: NodeClassView): NodeClassPlan['after']['amiSelectorTerms'] {
  const after = c.after.amiSelectorTerms;
  const archOfOld = (t: NodeClassView['amiSelectorTerms'][number]) => {
    const ami = view.statusAmis.find((a) => (t.id !== undefined ? a.id === t.id : t.name !== undefined && a.name === t.name));
    return ami?.requirements.find((r) => r.key === 'kubernetes.io/arch')?.values?.[0];
  };
  const archOfNew = (t: (typeof after)[number]) => c.targets.find((x) => x.id === t.id || (t.name !== undefined && x.name === t.name))?.arch;
  const old = c.before.amiSelectorTerms.map(archOfOld);
  if (old.some((a) => a === undefined) || after.some((t) => archOfNew(t) === undefined)) return after;
  const rank = (t: (typeof after)[number]) => {
    const i = old.indexOf(archOfNew(t));
    return i === -1 ? old.length : i;
  };
  return [...after].sort((a, b) => rank(a) - rank(b));
}

/** A budget the windows are made of (windows/budgets.ts): drift held at 0 on a schedule. Replaced by `pin --window`. */
export function isWindowBudget(b: Budget): boolean {
  return b.nodes === '0' && JSON.stringify(b.reasons) === '["Drifted"]' && b.schedule !== undefined && b.duration !== undefined;
}

/**
 * Each NodePool's budgets with the windows in: its own budgets (Karpenter's default `10%` where it has none, since a
 * list that exists replaces the default) and the windows' budgets after them, in place of the windows' budgets it had.
 */
export function windowWrites(unit: Unit, request: WindowRequest, now: Date): Write[] {
  return unit.objects
    .filter((o) => o.kind === 'NodePool')
    .map((o): Write => {
      const refused = windowsRefusedOn(o.apiVersion.endsWith('/v1beta1') ? 'v1beta1' : 'v1');
      const by = `${unit.label}: nodepool/${o.name}`;
      if (refused !== undefined) throw new RefusedError(`${by}: ${refused.refused}; nothing was changed`, { hint: refused.next });
      const current = valueAt(o.value, FIELDS.budgets) as Budget[] | undefined;
      const own = (current ?? DEFAULT_BUDGETS).filter((b) => !isWindowBudget(b));
      const result = windowBudgets(request.windows, request.exclusions, { now, kept: own.length });
      if ('error' in result) throw new UsageError(`${by}: ${result.error}; nothing was changed`, { hint: result.hint });
      const value = [...own, ...result.budgets] as unknown as Plain;
      return { field: 'budgets', decider: o.deciders.budgets!, value, changed: JSON.stringify(current) !== JSON.stringify(value), current, by };
    });
}
