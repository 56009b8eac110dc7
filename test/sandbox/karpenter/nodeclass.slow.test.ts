// The simulated EC2NodeClass controller on each kind of AMI resolution failure, as karpenter-provider-aws v1.14
// pkg/controllers/nodeclass/ami.go leaves it: what AMIsReady, Ready and status.amis say after the terms change.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { conditionOf } from '../../../src/sandbox/karpenter/objects.js';
import type { AmiSelectorTerm } from '../../../src/karpenter/views.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { customObjects, run } from './harness.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

async function changedTo(terms: AmiSelectorTerm[]) {
  const lines: string[] = [];
  const sandbox = await startSandbox({
    scenario: 'default',
    manualClock: new ManualClock(new Date('2026-11-23T10:00:00Z')),
    log: (l) => lines.push(l),
  });
  onTestFinished(() => sandbox.stop());
  const clocked = Object.assign(sandbox, {
    clock: sandbox.simulator.ctx.clock as ManualClock,
  });
  const before = sandbox.kube.store.get(EC2NODECLASSES, 'default')!;
  await customObjects(sandbox).patchClusterCustomObject(
    {
      group: 'karpenter.k8s.aws',
      version: 'v1',
      plural: 'ec2nodeclasses',
      name: 'default',
      body: {
        spec: {
          amiSelectorTerms: terms,
          ...(terms[0]?.alias ? { amiFamily: null } : {}),
        },
      },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  run(clocked, 5);
  const after = sandbox.kube.store.get(EC2NODECLASSES, 'default')!;
  const amis = (o: typeof after) => (o.status as { amis?: Array<{ id: string }> }).amis?.map((a) => a.id);
  const condition = (type: string) => {
    const c = conditionOf(after, type);
    return (
      c && {
        status: c.status,
        reason: c.reason,
        message: c.message,
        observedGeneration: c.observedGeneration,
      }
    );
  };
  return {
    before: amis(before),
    after: amis(after),
    condition,
    generation: after.metadata.generation,
    lines,
    sandbox: clocked,
  };
}

describe('EC2NodeClass AMI resolution failures', () => {
  it('an alias whose SSM parameters all miss is a reconcile error: AMIsReady and status.amis stay, Ready goes Unknown', async () => {
    const r = await changedTo([{ alias: 'al2023@v20990101' }]);
    expect(r.generation).toBe(2);
    expect(r.after).toEqual(r.before);
    expect(r.condition('AMIsReady')).toEqual({
      status: 'True',
      reason: 'AMIsReady',
      message: '',
      observedGeneration: 1,
    });
    expect(r.condition('SubnetsReady')?.observedGeneration).toBe(2);
    expect(r.condition('Ready')).toEqual({
      status: 'Unknown',
      reason: 'ReconcilingDependents',
      message: 'AMIsReady=True',
      observedGeneration: 2,
    });
    const errors = () => r.lines.filter((l) => l.includes('failed to discover any AMIs for alias "al2023@v20990101"'));
    expect(errors()).toHaveLength(1);
    // Retried with backoff (at most once a minute), not on every pass.
    run(r.sandbox, 60);
    expect(errors()).toHaveLength(2);
  });

  it('UnsupportedAlias sets AMIsReady=False and keeps status.amis', async () => {
    const r = await changedTo([{ alias: 'windows2025@latest' }]);
    expect(r.after).toEqual(r.before);
    expect(r.condition('AMIsReady')).toEqual({
      status: 'False',
      reason: 'UnsupportedAlias',
      message: 'Windows Server 2025 requires EKS version 1.35 or higher, current version: 1.30',
      observedGeneration: 2,
    });
    expect(r.condition('Ready')).toEqual({
      status: 'False',
      reason: 'UnhealthyDependents',
      message: 'AMIsReady=False',
      observedGeneration: 2,
    });
  });

  it('a non-alias selector that matches nothing is AMINotFound and clears status.amis', async () => {
    const r = await changedTo([{ id: 'ami-0000000000000dead' }]);
    expect(r.before?.length).toBeGreaterThan(0);
    expect(r.after).toBeUndefined();
    expect(r.condition('AMIsReady')).toEqual({
      status: 'False',
      reason: 'AMINotFound',
      message: 'AMISelector did not match any AMIs',
      observedGeneration: 2,
    });
    expect(r.condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'UnhealthyDependents',
      message: 'AMIsReady=False',
    });
  });
});
