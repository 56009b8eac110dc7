// Whether a GitOps-applied class carries the planned terms, the ones it had, or others (upgrade --apply-by git).
import { describe, expect, it } from 'vitest';
import type { AmiSpec } from '../../src/plan/ami-spec.js';
import { termsChanges, termsState } from '../../src/rollout/synced-terms.js';

const planned: AmiSpec = { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-new-amd64' }, { id: 'ami-new-arm64' }] };
const previous: AmiSpec = { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-old-amd64' }, { id: 'ami-old-arm64' }] };

describe('termsState', () => {
  it.each<[string, AmiSpec, AmiSpec, AmiSpec | undefined, ReturnType<typeof termsState>]>([
    ['the planned terms', planned, planned, previous, 'planned'],
    ['in another order (terms are ORed)', { amiFamily: 'AL2023', amiSelectorTerms: [...planned.amiSelectorTerms].reverse() }, planned, previous, 'planned'],
    ['the terms before the change', previous, planned, previous, 'previous'],
    ['other terms', { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-other' }] }, planned, previous, 'other'],
    ['the planned terms under another family', { amiFamily: 'Custom', amiSelectorTerms: planned.amiSelectorTerms }, planned, previous, 'other'],
    ['an alias plan: a family the file adds changes nothing', { amiFamily: 'AL2023', amiSelectorTerms: [{ alias: 'al2023@v20260701' }] }, { amiSelectorTerms: [{ alias: 'al2023@v20260701' }] }, undefined, 'planned'],
    ['nothing known of before: any other terms are other', previous, planned, undefined, 'other'],
  ])('%s', (_name, live, p, before, expected) => {
    expect(termsState(live, p, before)).toBe(expected);
  });
});

describe('termsChanges', () => {
  it('lists the classes off their planned terms, in name order, and judges no class it has not seen', () => {
    const classes = new Map([
      ['b', previous],
      ['a', { amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-other' }] }],
      ['c', planned],
    ]);
    expect(termsChanges(classes, { a: { planned }, b: { planned, previous }, c: { planned }, d: { planned } })).toEqual([
      { nodeClass: 'a', state: 'other', live: classes.get('a'), planned },
      { nodeClass: 'b', state: 'previous', live: previous, planned, previous },
    ]);
  });
});
