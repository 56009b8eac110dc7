// The pure parts of the inventory: which pods count, which classes were asked for, and event order.
import { describe, expect, it } from 'vitest';
import { newestLast, podsOnKarpenterNodes, selectNodeClasses } from '../../src/cluster/inventory.js';
import type { EventView, NodeClaimView, NodeClassView, NodeView, PodView } from '../../src/karpenter/views.js';

const pod = (name: string, nodeName?: string): PodView => ({ namespace: 'shop', name, ...(nodeName ? { nodeName } : {}), labels: {}, daemonSet: false, deleting: false });
const node = (name: string, nodePool?: string): NodeView => ({ name, uid: name, resourceVersion: '1', ...(nodePool ? { nodePool } : {}), ready: true, initialized: true, doNotDisrupt: false, taints: [], deleting: false });
const claim = (name: string, nodeName?: string): NodeClaimView => ({ name, uid: name, resourceVersion: '1', ...(nodeName ? { nodeName } : {}), gpu: false, accelerator: false, deleting: false, conditions: {} });
const nodeClass = (name: string): NodeClassView => ({ name, uid: name, resourceVersion: '1', generation: 1, amiSelectorTerms: [], statusAmis: [], conditions: {}, owners: [], labels: {}, annotations: {} });
const event = (uid: string, lastTimestamp?: string, firstTimestamp?: string): EventView => ({ uid, namespace: 'default', reason: 'DisruptionBlocked', message: '', count: 1, ...(lastTimestamp ? { lastTimestamp } : {}), ...(firstTimestamp ? { firstTimestamp } : {}) });

describe('podsOnKarpenterNodes', () => {
  it('keeps pods on nodes with a NodePool label or named by a NodeClaim', () => {
    const pods = [pod('a', 'labelled'), pod('b', 'claimed'), pod('c', 'mng'), pod('d')];
    expect(podsOnKarpenterNodes(pods, [node('labelled', 'general'), node('claimed'), node('mng')], [claim('x', 'claimed')]).map((p) => p.name)).toEqual(['a', 'b']);
  });
});

describe('selectNodeClasses', () => {
  const all = [nodeClass('default'), nodeClass('bottlerocket')];
  it('returns all without names, and the named ones in cluster order', () => {
    expect(selectNodeClasses(all, undefined, 'prod')).toEqual(all);
    expect(selectNodeClasses(all, ['bottlerocket'], 'prod').map((c) => c.name)).toEqual(['bottlerocket']);
  });
  it.each([
    [all, ['gpu', 'default', 'big'], 'no EC2NodeClass "gpu", "big" in context "prod"; its EC2NodeClasses: bottlerocket, default'],
    [[], ['default'], 'no EC2NodeClass "default" in context "prod"; it has no EC2NodeClasses'],
  ])('%#: %s', (classes, names, message) => {
    expect(() => selectNodeClasses(classes, names, 'prod')).toThrow(message);
  });
});

describe('newestLast', () => {
  it('orders by lastTimestamp, else firstTimestamp, whatever the precision', () => {
    const events = [event('b', '2026-11-23T10:00:02Z'), event('a', '2026-11-23T10:00:01.500Z'), event('c', undefined, '2026-11-23T10:00:03Z'), event('z')];
    expect(newestLast(events).map((e) => e.uid)).toEqual(['z', 'a', 'b', 'c']);
  });
});
