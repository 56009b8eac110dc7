// The reducer over recorded watch sequences: what a reconnecting watch really delivers (duplicates, changes
// overtaken by a relist, a DELETED followed by a stale MODIFIED) must leave the snapshot as the cluster is.
import { describe, expect, it } from 'vitest';
import type { EventView } from '../../src/karpenter/views.js';
import {
  applyChange,
  compareResourceVersions,
  emptySnapshot,
  MAX_EVENTS,
  type ClusterChange,
  type Snapshot,
} from '../../src/rollout/snapshot.js';
import { event, node, nodeClaim } from './factories.js';

const claim = (name: string, resourceVersion: string, imageId = 'ami-old') =>
  nodeClaim({ name, resourceVersion, imageId });
const added = (name: string, rv: string): ClusterChange => ({
  type: 'ADDED',
  kind: 'NodeClaim',
  view: claim(name, rv),
});
const modified = (name: string, rv: string, imageId?: string): ClusterChange => ({
  type: 'MODIFIED',
  kind: 'NodeClaim',
  view: claim(name, rv, imageId),
});
const deleted = (name: string, rv: string): ClusterChange => ({
  type: 'DELETED',
  kind: 'NodeClaim',
  view: claim(name, rv),
});
const synced = (...items: Array<[string, string]>): ClusterChange => ({
  type: 'synced',
  kind: 'NodeClaim',
  items: items.map(([name, rv]) => claim(name, rv)),
});

const fold = (changes: ClusterChange[], start: Snapshot = emptySnapshot()) => changes.reduce(applyChange, start);
const claims = (s: Snapshot) => Object.fromEntries([...s.nodeClaims.values()].map((c) => [c.name, c.resourceVersion]));

describe('applyChange: NodeClaims, Nodes and EC2NodeClasses', () => {
  it.each<[string, ClusterChange[], Record<string, string>]>([
    ['ADDED then MODIFIED', [added('a', '10'), modified('a', '12')], { a: '12' }],
    ['a duplicate MODIFIED', [added('a', '10'), modified('a', '12'), modified('a', '12')], { a: '12' }],
    [
      'MODIFIED out of order: the older one loses',
      [added('a', '10'), modified('a', '15'), modified('a', '12')],
      { a: '15' },
    ],
    ['versions compare as integers, not strings', [added('a', '9'), modified('a', '10')], { a: '10' }],
    ['DELETED then a stale MODIFIED: stays deleted', [added('a', '10'), deleted('a', '20'), modified('a', '15')], {}],
    ['DELETED then a stale ADDED: stays deleted', [added('a', '10'), deleted('a', '20'), added('a', '10')], {}],
    ['DELETED before its ADDED arrives: stays deleted', [deleted('a', '20'), added('a', '10')], {}],
    ['a name deleted and created again', [added('a', '10'), deleted('a', '20'), added('a', '30')], { a: '30' }],
    ['a late DELETED of an earlier incarnation is ignored', [added('a', '30'), deleted('a', '20')], { a: '30' }],
    [
      'a resourceVersion that is not an integer counts as newer',
      [added('a', '10'), modified('a', 'x7f')],
      { a: 'x7f' },
    ],
    [
      'synced replaces what was known',
      [added('a', '10'), added('b', '11'), synced(['b', '40'], ['c', '41'])],
      { b: '40', c: '41' },
    ],
    [
      'synced, then a change older than the list is stale',
      [synced(['a', '40']), added('b', '35'), modified('a', '39')],
      { a: '40' },
    ],
    [
      'synced, then a change newer than the list applies',
      [synced(['a', '40']), added('b', '45'), modified('a', '46')],
      { a: '46', b: '45' },
    ],
    // The relist clears tombstones, but its highest version still proves that `gone` was deleted before it.
    [
      'synced clears tombstones',
      [added('gone', '10'), deleted('gone', '20'), synced(['a', '40']), modified('gone', '15')],
      { a: '40' },
    ],
  ])('%s', (_name, changes, expected) => {
    expect(claims(fold(changes))).toEqual(expected);
  });

  it('counts only the changes that altered something in `revision`', () => {
    const s = fold([added('a', '10'), modified('a', '12')]);
    expect(s.revision).toBe(2);
    fold([modified('a', '12'), modified('a', '11'), deleted('a', '5')], s);
    expect(s.revision).toBe(2);
    fold([deleted('a', '13')], s);
    expect(s.revision).toBe(3);
  });

  it('keeps the kinds apart and marks each kind listed', () => {
    const s = fold([
      { type: 'synced', kind: 'Node', items: [node({ name: 'n1', resourceVersion: '50' })] },
      added('n1', '10'),
      { type: 'MODIFIED', kind: 'Node', view: node({ name: 'n1', resourceVersion: '49' }) },
    ]);
    expect([...s.nodes.keys()]).toEqual(['n1']);
    expect(s.nodes.get('n1')?.resourceVersion).toBe('50');
    expect(claims(s)).toEqual({ n1: '10' });
    expect([...s.synced]).toEqual(['Node']);
  });

  it('records the first full NodeClaim list as the baseline, and only the first', () => {
    const s = fold([
      { type: 'synced', kind: 'NodeClaim', items: [nodeClaim({ name: 'old-1', resourceVersion: '10' })] },
      {
        type: 'synced',
        kind: 'NodeClaim',
        items: [nodeClaim({ name: 'new-1', resourceVersion: '20', imageId: 'ami-new' })],
      },
    ]);
    expect(Object.fromEntries(s.baseline)).toEqual({ 'old-1': { nodePool: 'general', imageId: 'ami-old' } });
    expect(claims(s)).toEqual({ 'new-1': '20' });
  });

  it.each<[string, string, number | undefined]>([
    ['9', '10', -1],
    ['10', '10', 0],
    ['100000000000000000001', '100000000000000000000', 1],
    ['abc', '10', undefined],
  ])('compareResourceVersions(%s, %s) = %s', (a, b, expected) => {
    expect(compareResourceVersions(a, b)).toBe(expected);
  });
});

describe('applyChange: the NodeClaims that departed', () => {
  const departed = (s: Snapshot) => Object.fromEntries([...s.departed.values()].map((c) => [c.name, c.resourceVersion]));
  it.each<[string, ClusterChange[], Record<string, string>]>([
    ['a DELETED keeps its last view', [added('a', '10'), deleted('a', '20')], { a: '20' }],
    ['one deleted while the watch was down is found by the relist', [synced(['a', '10'], ['b', '11']), synced(['b', '12'])], { a: '10' }],
    ['the first list proves nothing gone', [synced(['b', '12'])], {}],
    ['a DELETED of one never seen is no departure (nothing known of it)', [deleted('a', '20')], {}],
    ['a stale DELETED of an earlier incarnation is none either', [added('a', '30'), deleted('a', '20')], {}],
  ])('%s', (_name, changes, expected) => {
    expect(departed(fold(changes))).toEqual(expected);
  });
});

describe('applyChange: events', () => {
  const ev = (uid: string, o: Partial<EventView> = {}) => event({ uid, ...o });
  const on = (type: 'ADDED' | 'MODIFIED' | 'DELETED', view: EventView): ClusterChange => ({
    type,
    kind: 'Event',
    view,
  });
  const events = (s: Snapshot) => [...s.events.values()].map((e) => `${e.uid}:${e.count}`);

  it.each<[string, ClusterChange[], string[]]>([
    ['a repeat raises the count', [on('ADDED', ev('a')), on('MODIFIED', ev('a', { count: 3 }))], ['a:3']],
    ['a stale repeat is ignored', [on('ADDED', ev('a', { count: 3 })), on('MODIFIED', ev('a', { count: 2 }))], ['a:3']],
    [
      'at the same count the later lastTimestamp wins',
      [
        on('ADDED', ev('a', { lastTimestamp: '2025-08-20T14:09:00Z' })),
        on('MODIFIED', ev('a', { lastTimestamp: '2025-08-20T14:08:00Z' })),
      ],
      ['a:1'],
    ],
    [
      'reasons the diagnosis does not read are dropped',
      [on('ADDED', ev('a', { reason: 'Evicted' })), on('ADDED', ev('b'))],
      ['b:1'],
    ],
    [
      'DELETED then a stale MODIFIED: stays deleted',
      [on('ADDED', ev('a')), on('DELETED', ev('a')), on('MODIFIED', ev('a', { count: 2 }))],
      [],
    ],
    [
      'an update moves the event last',
      [on('ADDED', ev('a')), on('ADDED', ev('b')), on('MODIFIED', ev('a', { count: 2 }))],
      ['b:1', 'a:2'],
    ],
  ])('%s', (_name, changes, expected) => {
    expect(events(fold(changes))).toEqual(expected);
  });

  it(`keeps at most ${MAX_EVENTS}, dropping the least recently updated`, () => {
    const s = fold(Array.from({ length: MAX_EVENTS + 2 }, (_, i) => on('ADDED', ev(`e${i}`))));
    expect(s.events.size).toBe(MAX_EVENTS);
    expect([...s.events.keys()].slice(0, 2)).toEqual(['e2', 'e3']);
  });

  it('synced keeps the relevant ones, newest last, and forgets deletions', () => {
    const s = fold([
      on('ADDED', ev('gone')),
      on('DELETED', ev('gone')),
      {
        type: 'synced',
        kind: 'Event',
        items: [
          ev('late', { lastTimestamp: '2025-08-20T14:09:00Z' }),
          ev('early', { lastTimestamp: '2025-08-20T14:01:00Z' }),
          ev('pod', { reason: 'Evicted' }),
        ],
      },
      on('ADDED', ev('gone')),
    ]);
    expect([...s.events.keys()]).toEqual(['early', 'late', 'gone']);
  });
});
