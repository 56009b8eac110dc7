// The replacements a follow saw, with their start and end (rollout/replacements.ts): NodeClaims not in the follow's
// first full list, from their creation to Initialized, or to their deletion before it.
import { describe, expect, it } from 'vitest';
import { foldReplacements, type ReplacementSpan } from '../../src/rollout/replacements.js';
import { applyChange, emptySnapshot } from '../../src/rollout/snapshot.js';
import type { NodeClaimView } from '../../src/karpenter/views.js';
import { at, iso, nodeClaim } from './factories.js';

const old = nodeClaim({ name: 'general-old01' });
/** A replacement created at `created` minutes, Initialized `up` minutes (none: not yet). */
const replacement = (name: string, created: number, up?: number, o: Partial<NodeClaimView> = {}) =>
  nodeClaim({
    name,
    imageId: 'ami-new',
    launchedAt: at(created, 0),
    ...(up !== undefined
      ? { conditions: { Initialized: { status: 'True', reason: 'Initialized', message: '', lastTransitionTime: iso(at(up)) } } }
      : { phase: 'launched' }),
    createdAt: iso(at(created)),
    // Newer than the first full list's NodeClaims (resourceVersion 100): a watch event after it.
    resourceVersion: '200',
    ...o,
  });

function followed(...changes: Array<(s: ReturnType<typeof emptySnapshot>) => void>) {
  const s = emptySnapshot();
  applyChange(s, { type: 'synced', kind: 'NodeClaim', items: [old] });
  for (const c of changes) c(s);
  return s;
}
/** A follow whose first full list already holds `items`. */
function followedFrom(items: NodeClaimView[]) {
  const s = emptySnapshot();
  applyChange(s, { type: 'synced', kind: 'NodeClaim', items });
  return s;
}
const added = (v: NodeClaimView) => (s: ReturnType<typeof emptySnapshot>) => void applyChange(s, { type: 'ADDED', kind: 'NodeClaim', view: v });
const deleted = (v: NodeClaimView) => (s: ReturnType<typeof emptySnapshot>) => void applyChange(s, { type: 'DELETED', kind: 'NodeClaim', view: v });
const span = (name: string, start: Date, end: Date | undefined, failed = false, nodePool = 'general'): ReplacementSpan => ({
  name,
  nodePool,
  start: start.getTime(),
  ...(end ? { end: end.getTime() } : {}),
  failed,
});

describe('foldReplacements', () => {
  it.each<[string, ReturnType<typeof emptySnapshot>, ReplacementSpan[]]>([
    ['the first full list is the baseline: no replacement', followed(), []],
    ['a replacement up: creation to Initialized', followed(added(replacement('general-new01', 2, 4))), [span('general-new01', at(2), at(4))]],
    ['one still coming up has no end', followed(added(replacement('general-new02', 3))), [span('general-new02', at(3), undefined)]],
    [
      'a DELETED of a NodeClaim never seen is no replacement: the snapshot never had it',
      followed(deleted(replacement('general-new03', 3, undefined, { deleting: true, deletionTimestamp: iso(at(18)) }))),
      [],
    ],
    [
      'seen coming up, then deleted before Initialized: failed',
      followed(added(replacement('general-new04', 3)), deleted(replacement('general-new04', 3, undefined, { resourceVersion: '201', deleting: true, deletionTimestamp: iso(at(18)) }))),
      [span('general-new04', at(3), at(18), true)],
    ],
    ['a NodePool out of scope is not drawn', followed(added(replacement('batch-new01', 2, 4, { nodePool: 'batch' }))), []],
    [
      'in the first full list but created since the run began (a rollback follows once its replacements started)',
      followedFrom([old, replacement('general-new07', 1, 3)]),
      [span('general-new07', at(1), at(3))],
    ],
    ['in the first full list and created before the run: not its replacement', followedFrom([old, replacement('general-new08', 0.5, 3)]), []],
  ])('%s', (_name, snapshot, expected) => {
    const into = new Map<string, ReplacementSpan>();
    foldReplacements(into, snapshot, new Set(['general']), at(1).getTime());
    expect([...into.values()]).toEqual(expected);
  });

  it.each<[string, number, boolean]>([
    ['stamped with the second the run began in (400 ms into it): counted, as Karpenter may have made it since', 0, true],
    ['stamped with the next second: counted', 1, true],
  ])('a run that began 400 ms into a second, a NodeClaim of the first full list %s', (_name, after, counted) => {
    const began = at(1).getTime() + 400;
    const claim = replacement('general-new09', 1, 3, { createdAt: new Date(at(1).getTime() + after * 1000).toISOString() });
    const into = new Map<string, ReplacementSpan>();
    foldReplacements(into, followedFrom([old, claim]), new Set(['general']), began);
    expect(into.has('general-new09')).toBe(counted);
  });

  it('keeps what it saw after the snapshot forgot it, and a later view replaces an earlier one', () => {
    const into = new Map<string, ReplacementSpan>();
    const s = followed(added(replacement('general-new05', 2)));
    foldReplacements(into, s, new Set(['general']), at(1).getTime());
    applyChange(s, { type: 'MODIFIED', kind: 'NodeClaim', view: replacement('general-new05', 2, 5, { resourceVersion: '202' }) });
    foldReplacements(into, s, new Set(['general']), at(1).getTime());
    s.departed.clear();
    s.nodeClaims.clear();
    foldReplacements(into, s, new Set(['general']), at(1).getTime());
    expect([...into.values()]).toEqual([span('general-new05', at(2), at(5))]);
  });

  it('before the first full list nothing is a replacement', () => {
    const into = new Map<string, ReplacementSpan>();
    const s = emptySnapshot();
    applyChange(s, { type: 'ADDED', kind: 'NodeClaim', view: replacement('general-new06', 2, 4) });
    foldReplacements(into, s, new Set(['general']), at(1).getTime());
    expect(into.size).toBe(0);
  });
});
