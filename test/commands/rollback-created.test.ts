// What rollback deletes after an `upgrade --templates`: exactly what the class's last upgrade created, and a created
// EC2NodeClass only once no NodePool that stays uses it.
import { describe, expect, it } from 'vitest';
import { createdByUpgrade, createdLines } from '../../src/commands/rollback-created.js';
import { inventory, nodeClaims, nodeClass, nodePool } from '../plan/factories.js';

const run = (id: string) => ({ 'karp-drift.io/run-id': id });
const createdBy = (id: string) => ({ 'karp-drift.io/created-by-run': id, ...run(id) });

describe('createdByUpgrade', () => {
  it('a NodePool the last upgrade of its class created: deleted, its nodes counted', () => {
    const inv = inventory({
      nodeClasses: [nodeClass({ annotations: run('r1') })],
      nodePools: [nodePool(), nodePool({ name: 'default', annotations: createdBy('r1') })],
      nodeClaims: [...nodeClaims(2), ...nodeClaims(1, { nodePool: 'default' })],
    });
    expect(createdByUpgrade(inv)).toEqual({ deletes: [{ kind: 'NodePool', name: 'default', uid: 'uid-nodepool-default', nodes: 1 }], kept: [] });
  });

  it('a NodePool an earlier upgrade created (the class was upgraded since): left alone', () => {
    const inv = inventory({
      nodeClasses: [nodeClass({ annotations: run('r2') })],
      nodePools: [nodePool({ name: 'default', annotations: createdBy('r1') })],
    });
    expect(createdByUpgrade(inv).deletes).toEqual([]);
  });

  it('a created EC2NodeClass: deleted with its created NodePool, kept while another NodePool uses it', () => {
    const classes = [nodeClass({ name: 'fresh', annotations: createdBy('r1') })];
    const created = nodePool({ name: 'fresh', nodeClass: 'fresh', annotations: createdBy('r1') });
    expect(createdByUpgrade(inventory({ nodeClasses: classes, nodePools: [created], nodeClaims: [] })).deletes.map((d) => `${d.kind}/${d.name}`)).toEqual([
      'NodePool/fresh',
      'EC2NodeClass/fresh',
    ]);
    const theirs = nodePool({ name: 'theirs', nodeClass: 'fresh' });
    const both = createdByUpgrade(inventory({ nodeClasses: classes, nodePools: [created, theirs], nodeClaims: [] }));
    expect(both.deletes.map((d) => `${d.kind}/${d.name}`)).toEqual(['NodePool/fresh']);
    expect(both.kept).toEqual([{ name: 'fresh', usedBy: ['nodepool/theirs'] }]);
    expect(createdLines(both)).toEqual([
      '- nodepool/fresh (created by karp-drift upgrade --templates): deleted; it has no nodes',
      '  ec2nodeclass/fresh (created by karp-drift upgrade --templates) stays: nodepool/theirs uses it',
    ]);
  });

  it('nothing karp-drift created: nothing to delete', () => {
    expect(createdByUpgrade(inventory())).toEqual({ deletes: [], kept: [] });
  });
});
