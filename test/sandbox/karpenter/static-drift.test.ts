// Static drift as Karpenter computes it (DOMAIN.md §2.1, §2.2): the hashes of a NodePool's template and of an
// EC2NodeClass's hashed fields (hashes.ts, after kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go `Hash()` and
// karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go `Hash()`), the hash controllers that annotate them, the claims
// that copy them at creation, and the drift controller's order: NodePoolDrifted, then NodeClassDrift, then AMIDrift
// (pkg/controllers/nodeclaim/disruption/drift.go, pkg/cloudprovider/drift.go).
import { afterEach, describe, expect, it } from 'vitest';
import {
  NODECLASS_HASH,
  NODECLASS_HASH_VERSION,
  NODEPOOL_HASH,
  NODEPOOL_HASH_VERSION,
  nodeClassHash,
  nodePoolHash,
} from '../../../src/sandbox/karpenter/hashes.js';
import { staticallyDrifted } from '../../../src/sandbox/karpenter/drift-controller.js';
import { hashVersions } from '../../../src/sandbox/scenarios/versions.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { NODECLAIMS, claimsOf, manualSandbox, pinToControlPlane, run, runUntil } from './harness.js';

const pool = (template: Record<string, unknown>, rest: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'p' },
  spec: { template, ...rest },
});
const BASE = {
  metadata: { labels: { team: 'a' } },
  spec: {
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
    taints: [
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoSchedule' },
    ],
    expireAfter: '720h',
  },
};
const with_ = (patch: (t: typeof BASE) => void) => {
  const t = structuredClone(BASE);
  patch(t);
  return t;
};

describe('nodePoolHash: spec.template less its requirements, lists as sets, zero values as absent', () => {
  it.each([
    ['a requirement', false, with_((t) => t.spec.requirements.push({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }))],
    ['the taints reordered', false, with_((t) => t.spec.taints.reverse())],
    ['an empty annotations map', false, with_((t) => Object.assign(t.metadata, { annotations: {} }))],
    ['a template label', true, with_((t) => (t.metadata.labels.team = 'b'))],
    ['a taint', true, with_((t) => t.spec.taints.pop())],
    ['expireAfter', true, with_((t) => (t.spec.expireAfter = 'Never'))],
    ['terminationGracePeriod', true, with_((t) => Object.assign(t.spec, { terminationGracePeriod: '24h' }))],
    ['the class reference', true, with_((t) => (t.spec.nodeClassRef.name = 'other'))],
  ])('%s changes the hash: %s', (_what, changed, template) => {
    expect(nodePoolHash(pool(template)) !== nodePoolHash(pool(BASE))).toBe(changed);
  });

  it('ignores what lies outside the template: budgets, limits, weight', () => {
    const outside = pool(BASE, { disruption: { budgets: [{ nodes: '0' }] }, limits: { cpu: '100' }, weight: 10 });
    expect(nodePoolHash(outside)).toBe(nodePoolHash(pool(BASE)));
    expect(nodePoolHash(pool(BASE))).toMatch(/^\d+$/); // a uint64, printed in decimal as Karpenter prints it
  });
});

describe('nodeClassHash: the spec less its hash:"ignore" fields, with the resolved AMI family', () => {
  const cls = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'c' }, spec });
  const BASE_CLASS = {
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    role: 'KarpenterNodeRole-sandbox',
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'sandbox' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'sandbox' } }],
    tags: { team: 'a' },
  };
  it.each([
    ['the AMI selector terms', false, { amiSelectorTerms: [{ id: 'ami-0123' }], amiFamily: 'AL2023' }],
    ['the subnet and security group selectors', false, { subnetSelectorTerms: [{ id: 'subnet-1' }], securityGroupSelectorTerms: [{ id: 'sg-1' }] }],
    ['ipPrefixCount', false, { ipPrefixCount: 2 }],
    ['an alias of another family (the resolved family)', true, { amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] }],
    ['the role', true, { role: 'other' }],
    ['a tag', true, { tags: { team: 'b' } }],
    ['userData', true, { userData: '#!/bin/bash' }],
    ['metadataOptions', true, { metadataOptions: { httpTokens: 'required' } }],
  ])('%s changes the hash: %s', (_what, changed, change) => {
    expect(nodeClassHash(cls({ ...BASE_CLASS, ...change })) !== nodeClassHash(cls(BASE_CLASS))).toBe(changed);
  });
});

describe('staticallyDrifted (areStaticFieldsDrifted)', () => {
  const annotated = (annotations: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'x', annotations } });
  it.each([
    ['the same hash', false, { h: '1', v: 'v3' }, { h: '1', v: 'v3' }],
    ['another hash at the same version', true, { h: '2', v: 'v3' }, { h: '1', v: 'v3' }],
    ['another hash at another version: no verdict', false, { h: '2', v: 'v4' }, { h: '1', v: 'v3' }],
    ['the claim without a hash: no verdict', false, { h: '2', v: 'v3' }, { v: 'v3' }],
    ['the NodePool not annotated yet: no verdict', false, {}, { h: '1', v: 'v3' }],
  ])('%s: drifted %s', (_what, drifted, theirs, ours) => {
    const toAnnotations = (a: { h?: string; v?: string }) => ({ ...(a.h ? { [NODEPOOL_HASH]: a.h } : {}), ...(a.v ? { [NODEPOOL_HASH_VERSION]: a.v } : {}) });
    expect(staticallyDrifted(annotated(toAnnotations(theirs)), annotated(toAnnotations(ours)), NODEPOOL_HASH, NODEPOOL_HASH_VERSION)).toBe(drifted);
  });

  it.each([
    ['1.0.0', 'v3', 'v3'],
    ['1.1.0', 'v3', 'v4'],
    ['1.11.9', 'v3', 'v4'],
    ['1.12.1', 'v3', 'v5'],
    ['0.37.0', 'v2', 'v2'],
  ])('Karpenter %s writes hash versions nodepool %s, ec2nodeclass %s', (version, nodePool, nodeClass) => {
    const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
    expect(hashVersions({ major, minor, patch })).toEqual({ nodePool, nodeClass });
  });
});

describe('the sandbox drifts statically', () => {
  let sandbox: Awaited<ReturnType<typeof manualSandbox>> | undefined;
  afterEach(async () => {
    await sandbox?.stop();
    sandbox = undefined;
  });
  const store = (s: Sandbox) => s.kube.store;
  const drifted = (c: KubeObject) =>
    (c.status as { conditions?: Array<{ type: string; reason: string; lastTransitionTime: string }> } | undefined)?.conditions?.find((x) => x.type === 'Drifted');
  const update = (s: Sandbox, resource: string, name: string, change: (o: KubeObject) => void) => {
    const o = structuredClone(store(s).get(resource, name)!);
    change(o);
    store(s).update(resource, o);
  };

  it('annotates NodePools and classes with their hashes, and every claim carries the hashes it was made from', async () => {
    sandbox = await manualSandbox('default');
    const pool = store(sandbox).get('nodepools.karpenter.sh', 'general')!;
    expect(pool.metadata.annotations).toMatchObject({ [NODEPOOL_HASH]: nodePoolHash(pool), [NODEPOOL_HASH_VERSION]: 'v3' });
    const nodeClass = store(sandbox).get('ec2nodeclasses.karpenter.k8s.aws', 'default')!;
    expect(nodeClass.metadata.annotations).toMatchObject({ [NODECLASS_HASH]: nodeClassHash(nodeClass), [NODECLASS_HASH_VERSION]: 'v5' });
    for (const claim of claimsOf(sandbox, 'general'))
      expect(claim.metadata.annotations).toMatchObject({
        [NODEPOOL_HASH]: pool.metadata.annotations![NODEPOOL_HASH],
        [NODECLASS_HASH]: nodeClass.metadata.annotations![NODECLASS_HASH],
      });
  });

  it('a template label drifts every claim of the pool (NodePoolDrifted); their replacements carry the label and the new hash', async () => {
    sandbox = await manualSandbox('default');
    const s = sandbox;
    update(s, 'nodepools.karpenter.sh', 'general', (o) => {
      ((o.spec as { template: { metadata?: unknown } }).template).metadata = { labels: { rollout: 'r2' } };
    });
    const old = claimsOf(s, 'general').map((c) => c.metadata.name);
    runUntil(s, () => claimsOf(s, 'general').every((c) => drifted(c)?.reason === 'NodePoolDrifted'), 10, 'NodePoolDrifted');
    // The other pool's claims are not drifted, and a budget write drifts nothing.
    expect(claimsOf(s, 'arm').filter((c) => drifted(c))).toEqual([]);
    update(s, 'nodepools.karpenter.sh', 'arm', (o) => {
      const spec = o.spec as { disruption?: Record<string, unknown> };
      spec.disruption = { ...spec.disruption, budgets: [{ nodes: '0' }] };
    });
    run(s, 10);
    expect(claimsOf(s, 'arm').filter((c) => drifted(c))).toEqual([]);
    const replacement = runUntil(
      s,
      () => claimsOf(s, 'general').some((c) => !old.includes(c.metadata.name) && (c.status as { nodeName?: string }).nodeName),
      600,
      'a registered replacement',
    );
    expect(replacement).toBeGreaterThan(0);
    const fresh = claimsOf(s, 'general').find((c) => !old.includes(c.metadata.name))!;
    expect(fresh.metadata.labels?.rollout).toBe('r2');
    expect(fresh.metadata.annotations?.[NODEPOOL_HASH]).toBe(store(s).get('nodepools.karpenter.sh', 'general')!.metadata.annotations?.[NODEPOOL_HASH]);
    expect(drifted(fresh)).toBeUndefined();
    expect(store(s).get('nodes', (fresh.status as { nodeName: string }).nodeName)!.metadata.labels?.rollout).toBe('r2');
  });

  it('a hashed class field drifts every claim of the class (NodeClassDrift); static drift outranks AMIDrift, keeping the transition time', async () => {
    sandbox = await manualSandbox('default');
    const s = sandbox;
    const ofClass = (c: KubeObject) => (c.spec as { nodeClassRef: { name: string } }).nodeClassRef.name === 'default';
    const old = store(s).list(NODECLAIMS).filter(ofClass).map((c) => c.metadata.name);
    const olds = () => store(s).list(NODECLAIMS).filter((c) => old.includes(c.metadata.name));
    await pinToControlPlane(s, 'default');
    runUntil(s, () => olds().every((c) => drifted(c)?.reason === 'AMIDrift'), 30, 'AMIDrift');
    const since = new Map(olds().map((c) => [c.metadata.name, drifted(c)!.lastTransitionTime]));
    update(s, 'ec2nodeclasses.karpenter.k8s.aws', 'default', (o) => {
      (o.spec as { tags?: Record<string, string> }).tags = { team: 'platform' };
    });
    runUntil(s, () => olds().every((c) => drifted(c)?.reason === 'NodeClassDrift'), 30, 'NodeClassDrift');
    for (const c of olds()) expect(drifted(c)!.lastTransitionTime).toBe(since.get(c.metadata.name));
    // The other class's claims (NodePool system, on bottlerocket) do not drift.
    expect(store(s).list(NODECLAIMS).filter((c) => !ofClass(c) && drifted(c))).toEqual([]);
  });

  it('an older hash version re-stamps the claims instead of drifting them (the hash only on claims not Drifted)', async () => {
    sandbox = await manualSandbox('default');
    const s = sandbox;
    const [first, second] = claimsOf(s, 'general');
    for (const name of [first!.metadata.name!, second!.metadata.name!])
      update(s, NODECLAIMS, name, (o) => {
        o.metadata.annotations = { ...o.metadata.annotations, [NODEPOOL_HASH]: 'old', [NODEPOOL_HASH_VERSION]: 'v2' };
      });
    update(s, 'nodepools.karpenter.sh', 'general', (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, [NODEPOOL_HASH_VERSION]: 'v2' };
    });
    run(s, 2);
    const hash = store(s).get('nodepools.karpenter.sh', 'general')!.metadata.annotations?.[NODEPOOL_HASH];
    for (const claim of claimsOf(s, 'general')) {
      expect(claim.metadata.annotations).toMatchObject({ [NODEPOOL_HASH]: hash, [NODEPOOL_HASH_VERSION]: 'v3' });
      expect(drifted(claim)).toBeUndefined();
    }
  });
});
