// What a rollback says it replaces: the nodes that run the AMIs pinned now (they drift back), never the nodes that
// never left the previous AMIs (a halted canary leaves most of the cluster there). Issue: after a gate halted with 1
// node replaced, rollback warned "(33 nodes) … nodes already replaced are replaced again".
import { describe, expect, it } from 'vitest';
import { onPinnedAmis, replacementWarning } from '../../src/commands/rollback-plan.js';
import { inventory, nodeClaim, nodeClass, nodePool, OLD } from '../plan/factories.js';

const pinned = 'ami-0new00000000000001';
const classNow = nodeClass({ statusAmis: [{ id: pinned, requirements: [] }] });

describe('rollback: the nodes it replaces', () => {
  it.each<[string, Parameters<typeof nodeClaim>[0][], number]>([
    ['a halted canary: one node on the pinned AMI, the rest never left the old one', [{ name: 'a', imageId: pinned }, { name: 'b' }, { name: 'c' }], 1],
    ['a replacement still launching (no image yet) comes from the pinned AMIs', [{ name: 'a', imageId: undefined }, { name: 'b' }], 1],
    ['everything replaced', [{ name: 'a', imageId: pinned }, { name: 'b', imageId: pinned }], 2],
    ['nothing replaced', [{ name: 'a' }, { name: 'b', imageId: OLD['amd64/standard'] }], 0],
  ])('%s', (_name, claims, expected) => {
    const inv = inventory({ nodeClasses: [classNow], nodeClaims: claims.map((c) => nodeClaim(c)) });
    expect(onPinnedAmis(inv, inv.nodeClaims)).toBe(expected);
  });

  it.each<[string, number, number, string]>([
    ['one of 33', 33, 1, 'rolling back drifts the 1 node of nodepool/general that runs the AMIs pinned now back to the previous AMIs: it was replaced once already and is replaced again (the other 32 nodes never left the previous AMIs and stay)'],
    ['all of them', 3, 3, 'rolling back drifts the 3 nodes of nodepool/general that run the AMIs pinned now back to the previous AMIs: they were replaced once already and are replaced again'],
    ['none', 3, 0, 'rolling back replaces no node of nodepool/general: none of their 3 nodes runs the AMIs pinned now'],
  ])('the warning: %s', (_name, nodes, onPinned, text) => {
    expect(replacementWarning({ pools: [nodePool()], nodes, onPinned })).toBe(text);
  });

  // A staged rollback under way (its classes restored, status.amis the previous AMIs): the nodes still elsewhere go back.
  it.each<[string, Parameters<typeof nodeClaim>[0][], number]>([
    ['part of the way back: the node on the restored AMI stays, the others go', [{ name: 'a', imageId: pinned }, { name: 'b' }, { name: 'c' }], 2],
    ['a replacement still launching comes from the restored AMIs: not counted', [{ name: 'a', imageId: undefined }, { name: 'b' }], 1],
    ['all back', [{ name: 'a', imageId: pinned }], 0],
  ])('restored: %s', (_name, claims, expected) => {
    const inv = inventory({ nodeClasses: [classNow], nodeClaims: claims.map((c) => nodeClaim(c)) });
    expect(onPinnedAmis(inv, inv.nodeClaims, new Set(['default']))).toBe(expected);
  });

  it.each<[string, number, number, string]>([
    ['part of the way', 17, 16, 'the rollback under way drifts the 16 nodes of nodepool/general not yet on the previous AMIs back to them (the other 1 node is back already)'],
    ['none back yet', 3, 3, 'the rollback under way drifts the 3 nodes of nodepool/general not yet on the previous AMIs back to them'],
    ['all back', 3, 0, 'the rollback under way replaces no more node of nodepool/general: all 3 nodes run the previous AMIs'],
  ])('the warning of a rollback under way: %s', (_name, nodes, onPinned, text) => {
    expect(replacementWarning({ pools: [nodePool()], nodes, onPinned, resumed: true })).toBe(text);
  });
});
