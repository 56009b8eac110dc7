// Whether a class the GitOps tool applies carries the terms a run planned (`upgrade --apply-by git`): the change
// merged and synced (`planned`), not yet (`previous`: the terms it had), or terms the plan never chose (`other`: a
// different commit, a hand edit the tool synced, a revert to something else). During the rollout the same reading
// tells a revert (back to `previous`) from any other change. Pure.
import type { AmiSpec } from '../plan/ami-spec.js';
import { sameAmiSpec } from '../plan/pin.js';
import { inOrder } from '../text/order.js';

export type TermsState = 'planned' | 'previous' | 'other';

/**
 * `amiFamily` counts only where the spec compared with sets it: a GitOps file may write the family an alias already
 * implies, which changes nothing Karpenter resolves.
 */
function matches(live: AmiSpec, spec: AmiSpec): boolean {
  const family = spec.amiFamily === undefined ? {} : { amiFamily: live.amiFamily };
  return sameAmiSpec({ ...family, amiSelectorTerms: live.amiSelectorTerms }, spec);
}

export function termsState(live: AmiSpec, planned: AmiSpec, previous: AmiSpec | undefined): TermsState {
  if (matches(live, planned)) return 'planned';
  if (previous !== undefined && matches(live, previous)) return 'previous';
  return 'other';
}

/** What one class is expected to carry while the rollout goes on, and what it had before the change. */
export interface PlannedTerms {
  planned: AmiSpec;
  previous?: AmiSpec;
}

export interface TermsChange {
  nodeClass: string;
  state: 'previous' | 'other';
  live: AmiSpec;
  planned: AmiSpec;
  previous?: AmiSpec;
}

/** The classes whose terms are no longer the planned ones, in name order (a class not seen yet is not judged). */
export function termsChanges(
  classes: ReadonlyMap<string, { amiFamily?: string; amiSelectorTerms: AmiSpec['amiSelectorTerms'] }>,
  expected: Readonly<Record<string, PlannedTerms>>,
): TermsChange[] {
  const out: TermsChange[] = [];
  for (const [name, e] of Object.entries(expected).sort(([a], [b]) => inOrder(a, b))) {
    const view = classes.get(name);
    if (view === undefined) continue;
    const live: AmiSpec = { ...(view.amiFamily !== undefined ? { amiFamily: view.amiFamily } : {}), amiSelectorTerms: view.amiSelectorTerms };
    const state = termsState(live, e.planned, e.previous);
    if (state !== 'planned') out.push({ nodeClass: name, state, live, planned: e.planned, ...(e.previous !== undefined ? { previous: e.previous } : {}) });
  }
  return out;
}
