// A unit's manifests as the Inventory plan reads: what stands in for a cluster's status, and where it comes from.
import { describe, expect, it } from 'vitest';
import { unitInventory } from '../../src/gitops/file-inventory.js';
import { manifestObjects } from '../../src/gitops/build.js';
import type { Unit } from '../../src/gitops/objects.js';
import { parseYamlFile, type YamlFile } from '../../src/gitops/yaml-file.js';
import { idStatusAmis, inventory, nodeClass, NEW, OLD } from '../plan/factories.js';

const CLASS = (terms: string) => `apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n  amiFamily: AL2023\n  amiSelectorTerms: ${terms}\n`;
const unit = (text: string): Unit => ({ label: 'k', kind: 'manifests', objects: manifestObjects(parseYamlFile('k/c.yaml', text) as YamlFile) });
const IMAGES = [{ id: NEW['arm64/standard'], name: 'amazon-eks-node-al2023-arm64-standard-1.31-v20241109', architecture: 'arm64' }];

describe('unitInventory', () => {
  it('no cluster: the terms are the files\', status.amis the images EC2 describes for them, no owners, no control plane', () => {
    const inv = unitInventory(unit(CLASS(`[{id: ${NEW['arm64/standard']}}]`)), IMAGES);
    expect(inv.origin).toBe('files');
    expect(inv.controlPlane).toEqual({ minor: '', gitVersion: '' });
    expect(inv.nodeClasses[0]).toMatchObject({
      name: 'default',
      amiSelectorTerms: [{ id: NEW['arm64/standard'] }],
      statusAmis: [{ id: NEW['arm64/standard'], name: IMAGES[0]!.name, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }],
      owners: [],
    });
  });

  it("a cluster whose class has the same terms (synced): its status.amis, its control plane; other terms: EC2's", () => {
    const live = nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: OLD['amd64/standard'] }], statusAmis: idStatusAmis(['amd64/standard']) });
    const cluster = inventory({ nodeClasses: [live] });
    const synced = unitInventory(unit(CLASS(`[{id: ${OLD['amd64/standard']}}]`)), IMAGES, cluster);
    expect(synced.nodeClasses[0]!.statusAmis).toEqual(live.statusAmis);
    expect(synced.controlPlane).toEqual(cluster.controlPlane);
    const ahead = unitInventory(unit(CLASS(`[{id: ${NEW['arm64/standard']}}]`)), IMAGES, cluster);
    expect(ahead.nodeClasses[0]!.statusAmis.map((a) => a.id)).toEqual([NEW['arm64/standard']]);
  });
});
