// The NodePool schema the sandbox serves is the simulated release's (src/sandbox/scenarios/karpenter-crds.ts): what a
// budget written to it comes back as, and which API versions are served, compared with each tag's own CRDs.
import { describe, expect, it } from 'vitest';
import type { Budget } from '../../../src/karpenter/budgets.js';
import { KubeStore } from '../../../src/sandbox/kube-api/registry-store.js';
import { ResourceRegistry } from '../../../src/sandbox/kube-api/resources.js';
import { ObjectStore } from '../../../src/sandbox/kube-api/store.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { karpenterConversions, karpenterCrds } from '../../../src/sandbox/scenarios/karpenter-crds.js';
import { karpenterVersionOf } from '../../../src/sandbox/scenarios/versions.js';

const HOLD: Budget[] = [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }];

function storeFor(karpenterVersion: string): KubeStore {
  const store = new KubeStore(new ObjectStore(1000), new ResourceRegistry(), () => new Date('2026-11-23T10:00:00Z'));
  const release = karpenterVersionOf(karpenterVersion);
  store.conversions = karpenterConversions(release);
  for (const crd of karpenterCrds(release)) {
    store.create('customresourcedefinitions.apiextensions.k8s.io', crd as never);
  }
  return store;
}

const servedVersions = (store: KubeStore) =>
  store.resources
    .all()
    .filter((r) => r.group === 'karpenter.sh' && r.resource === 'nodepools')
    .map((r) => r.version)
    .sort();

/** Creates a NodePool through `version` (default: the storage version) and reads its budgets back. */
function budgetsKept(store: KubeStore, budgets: Budget[] | undefined, version?: string): Budget[] | undefined {
  const r = version ? store.resources.lookup('karpenter.sh', version, 'nodepools')! : 'nodepools.karpenter.sh';
  const v1 = (version ?? store.info('nodepools.karpenter.sh').version) === 'v1';
  const nodeClassRef = v1
    ? { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }
    : { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' };
  const pool: KubeObject = {
    apiVersion: `karpenter.sh/${v1 ? 'v1' : 'v1beta1'}`,
    kind: 'NodePool',
    metadata: { name: 'general' },
    spec: {
      template: { spec: { nodeClassRef, requirements: [] } },
      disruption: { ...(v1 ? { consolidateAfter: '0s' } : {}), ...(budgets === undefined ? {} : { budgets }) },
    },
  };
  store.create(r, pool);
  const read = store.get('nodepools.karpenter.sh', 'general');
  return (read?.spec as { disruption?: { budgets?: Budget[] } }).disruption?.budgets;
}

describe('the Karpenter CRDs of the simulated release', () => {
  it('v1 (1.14.1) keeps budget reasons', () => {
    const store = storeFor('1.14.1');
    expect(servedVersions(store)).toEqual(['v1']);
    expect(budgetsKept(store, HOLD)).toEqual(HOLD);
  });

  it('v0.36.2 serves v1beta1 alone and prunes reasons: a Drifted hold comes back as a budget for every reason', () => {
    const store = storeFor('0.36.2');
    expect(servedVersions(store)).toEqual(['v1beta1']);
    expect(budgetsKept(store, HOLD)).toEqual([{ nodes: '10%' }, { nodes: '0' }]);
  });

  it('v0.37 prunes reasons too: no v1beta1 schema ever had them; v0.37.1+ also serve v1 for the upgrade to v1.0', () => {
    const first = storeFor('0.37.0');
    expect(servedVersions(first)).toEqual(['v1beta1']);
    expect(budgetsKept(first, HOLD)).toEqual([{ nodes: '10%' }, { nodes: '0' }]);
    const last = storeFor('0.37.8');
    expect(servedVersions(last)).toEqual(['v1', 'v1beta1']);
    expect(last.info('nodepools.karpenter.sh').version).toBe('v1beta1');
    expect(budgetsKept(last, HOLD)).toEqual([{ nodes: '10%' }, { nodes: '0' }]);
    // Through v1, the release's conversion webhook drops them on the way to v1beta1 storage (nodepool_conversion.go).
    expect(budgetsKept(storeFor('0.37.8'), HOLD, 'v1')).toEqual([{ nodes: '10%' }, { nodes: '0' }]);
  });

  it('v0.34–v0.36 default the budgets to 10% and serve v1 from the patches that prepared v1.0', () => {
    expect(budgetsKept(storeFor('0.34.0'), undefined)).toEqual([{ nodes: '10%' }]);
    expect(servedVersions(storeFor('0.34.6'))).toEqual(['v1beta1']);
    expect(servedVersions(storeFor('0.34.7'))).toEqual(['v1', 'v1beta1']);
    expect(servedVersions(storeFor('0.35.5'))).toEqual(['v1beta1']);
    expect(servedVersions(storeFor('0.35.6'))).toEqual(['v1', 'v1beta1']);
    expect(servedVersions(storeFor('0.36.3'))).toEqual(['v1', 'v1beta1']);
  });

  it('v0.32–v0.33 have no budgets: a written list is pruned and none is defaulted', () => {
    for (const version of ['0.32.10', '0.33.5', '0.33.12']) {
      const store = storeFor(version);
      expect(budgetsKept(store, HOLD), version).toBeUndefined();
      expect(store.get('nodepools.karpenter.sh', 'general')?.spec).toMatchObject({
        disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter: '720h' },
      });
    }
    expect(servedVersions(storeFor('0.33.5'))).toEqual(['v1beta1']);
    expect(servedVersions(storeFor('0.33.6'))).toEqual(['v1', 'v1beta1']);
    expect(budgetsKept(storeFor('0.33.6'), HOLD, 'v1')).toBeUndefined();
  });
});
