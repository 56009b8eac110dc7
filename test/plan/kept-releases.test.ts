// Which families a re-run of a staged rollout keeps at the release the rollout pinned (plan/kept-releases.ts). The
// moment: a 1.31 rollout began at 10:00 (its first budget hold), karp-drift pinned `default` (AL2023, amd64 and
// arm64) at v20261101 at 10:00:30, and the policy would now pin a newer release.
import { describe, expect, it } from 'vitest';
import { encodeHoldRecord, HOLD_ANNOTATION, type HoldRecord } from '../../src/apis/budget-hold.js';
import type { FieldOwner, NodeClassView } from '../../src/karpenter/views.js';
import { keptReleases, keptSources, movingRelease, type KeepRequest } from '../../src/plan/kept-releases.js';
import { neededAmiQueries } from '../../src/plan/targets.js';
import { idStatusAmis, inventory, NEW, nodeClass, nodePool } from './factories.js';

const BEGAN = '2026-11-28T10:00:00.250Z';
const record = (overrides: Partial<HoldRecord> = {}): Record<string, string> => ({
  [HOLD_ANNOTATION]: encodeHoldRecord({ runId: 'run-1', since: BEGAN, budgets: null, target: '1.31', ...overrides }),
});
const applied = (time: string, manager = 'karp-drift', operation: FieldOwner['operation'] = 'Apply'): FieldOwner[] => [
  { manager, operation, ownsAmiSelectorTerms: true, ownsAmiFamily: false, time },
];
/** `default` pinned by id at `release` of `minor`, by karp-drift's apply at `time`. */
const pinned = (release = 'v20261101', time = '2026-11-28T10:00:30Z', overrides: Partial<NodeClassView> = {}) =>
  nodeClass({
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ id: NEW['amd64/standard'] }, { id: NEW['arm64/standard'] }],
    statusAmis: idStatusAmis(['amd64/standard', 'arm64/standard'], NEW, '1.31', release),
    owners: applied(time),
    ...overrides,
  });
const REQUEST: KeepRequest = { to: '1.31', release: 'latest', staged: true, fieldManager: 'karp-drift' };
const held = (annotations = record(), name = 'general') => nodePool({ name, annotations });
const summary = (kept: ReturnType<typeof keptReleases>) => kept.map((k) => `${k.family} ${k.release} ${k.nodeClasses.join(',')}`);

describe('keptReleases', () => {
  it.each<[string, Parameters<typeof inventory>[0], Partial<KeepRequest>, string[]]>([
    ['a rollout under way: its class keeps its release', { nodeClasses: [pinned()], nodePools: [held()] }, {}, ['al2023 v20261101 default']],
    ['latest~1 moves too', { nodeClasses: [pinned()], nodePools: [held()] }, { release: 'latest~1' }, ['al2023 v20261101 default']],
    ['a release named outright is honoured as given', { nodeClasses: [pinned()], nodePools: [held()] }, { release: 'v20261108' }, []],
    ['not a staged run: resolved anew', { nodeClasses: [pinned()], nodePools: [held()] }, { staged: false }, []],
    ['no hold: no rollout under way (it finished)', { nodeClasses: [pinned()], nodePools: [nodePool()] }, {}, []],
    ['a hold for another target', { nodeClasses: [pinned()], nodePools: [held(record({ target: '1.30' }))] }, {}, []],
    ['a pause with no target', { nodeClasses: [pinned()], nodePools: [held(record({ target: undefined }))] }, {}, []],
    ['a hand-edited record says nothing', { nodeClasses: [pinned()], nodePools: [held({ [HOLD_ANNOTATION]: '{oops' })] }, {}, []],
    [
      'pinned before the rollout began (an earlier rollout to the same minor): the new one takes the newer release',
      { nodeClasses: [pinned('v20261025', '2026-11-20T08:00:00Z')], nodePools: [held()] },
      {},
      [],
    ],
    [
      "pinned two minutes before the first hold by the API server's clock (the client's runs ahead)",
      { nodeClasses: [pinned('v20261101', '2026-11-28T09:58:00Z')], nodePools: [held()] },
      {},
      ['al2023 v20261101 default'],
    ],
    ['pinned an hour before the rollout began', { nodeClasses: [pinned('v20261101', '2026-11-28T09:00:00Z')], nodePools: [held()] }, {}, []],
    ['pinned in the second the first hold went on', { nodeClasses: [pinned('v20261101', '2026-11-28T10:00:00Z')], nodePools: [held()] }, {}, ['al2023 v20261101 default']],
    [
      'pinned by somebody else',
      { nodeClasses: [pinned('v20261101', '2026-11-28T10:00:30Z', { owners: applied('2026-11-28T10:00:30Z', 'argocd-controller') })], nodePools: [held()] },
      {},
      [],
    ],
    [
      'an apply time the server did not record',
      { nodeClasses: [pinned('v20261101', '2026-11-28T10:00:30Z', { owners: [{ manager: 'karp-drift', operation: 'Apply', ownsAmiSelectorTerms: true, ownsAmiFamily: false }] })], nodePools: [held()] },
      {},
      [],
    ],
    [
      'still on the old minor (the first run was outside its window: holds, no apply)',
      { nodeClasses: [pinned('v20261101', '2026-11-28T10:00:30Z', { statusAmis: idStatusAmis(['amd64/standard'], NEW, '1.30', 'v20261101') })], nodePools: [held()] },
      {},
      [],
    ],
    [
      'status.amis of two releases is no pin of one',
      {
        nodeClasses: [
          pinned('v20261101', '2026-11-28T10:00:30Z', {
            statusAmis: [...idStatusAmis(['amd64/standard'], NEW, '1.31', 'v20261101'), ...idStatusAmis(['arm64/standard'], NEW, '1.31', 'v20261108')],
          }),
        ],
        nodePools: [held()],
      },
      {},
      [],
    ],
    [
      'a class out of scope (--nodeclass) is neither evidence nor kept',
      { nodeClasses: [pinned(), pinned('v20261101', '2026-11-28T10:00:30Z', { name: 'other' })], nodePools: [held(record(), 'general'), nodePool({ name: 'x', nodeClass: 'other' })] },
      { nodeClasses: ['other'] },
      [],
    ],
    [
      'a class whose NodePools karp-drift holds node by node (no record) is kept when the rollout pinned it',
      {
        nodeClasses: [pinned(), pinned('v20261101', '2026-11-28T10:01:00Z', { name: 'batch' })],
        nodePools: [held(), nodePool({ name: 'batch', nodeClass: 'batch' })],
      },
      {},
      ['al2023 v20261101 batch,default'],
    ],
    [
      "classes of one family at two releases (an earlier re-run moved one): the newest, which the canary's saw first",
      {
        nodeClasses: [pinned('v20261101'), pinned('v20261108', '2026-11-28T11:00:00Z', { name: 'canary' })],
        nodePools: [held(), held(record(), 'canary')],
      },
      {},
      ['al2023 v20261108 canary'],
    ],
  ])('%s', (_name, cluster, request, expected) => {
    expect(summary(keptReleases(inventory(cluster), { ...REQUEST, ...request }))).toEqual(expected);
  });

  it('the earliest hold dates the rollout: a class pinned after it counts even when a later hold is younger', () => {
    const cluster = inventory({
      nodeClasses: [pinned('v20261101', '2026-11-28T10:00:30Z')],
      nodePools: [held(), held(record({ since: '2026-11-28T12:00:00Z' }), 'canary')],
    });
    expect(summary(keptReleases(cluster, REQUEST))).toEqual(['al2023 v20261101 default']);
  });

  it('a kept family is asked at its release; the others at the release asked', () => {
    const cluster = inventory({ nodeClasses: [pinned()], nodePools: [held()], nodeClaims: [] });
    const kept = keptReleases(cluster, REQUEST);
    // `general` can launch amd64 only: one query.
    expect(neededAmiQueries(cluster, { to: '1.31', release: 'latest~1', kept }).map((q) => `${q.family} ${q.arch} ${q.release}`)).toEqual([
      'al2023 amd64 v20261101',
    ]);
    expect(neededAmiQueries(cluster, { to: '1.31', release: 'latest~1' }).map((q) => q.release)).toEqual(['latest~1']);
  });

  it('keptSources: what the edge found the policy would pin now, null when it could not tell', () => {
    const kept = [{ family: 'al2023' as const, release: 'v20261101', nodeClasses: ['default'] }];
    expect(keptSources(kept, [{ family: 'al2023', newer: 'v20261108' }])).toEqual([{ ...kept[0], newer: 'v20261108' }]);
    expect(keptSources(kept)).toEqual([{ ...kept[0], newer: null }]);
  });

  it.each([
    ['latest', true],
    ['latest~2', true],
    ['v20261108', false],
    ['1.33.2', false],
    ['latest~', false],
  ])('movingRelease(%s) = %s', (release, moving) => {
    expect(movingRelease(release)).toBe(moving);
  });
});
