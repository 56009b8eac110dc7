// The EC2NodeClass status controller (karpenter-provider-aws pkg/controllers/nodeclass): on every new generation it
// resolves amiSelectorTerms (amis.ts) and writes status.amis with AMIsReady and Ready, observedGeneration included.
// Subnets, security groups and the instance profile always resolve in the sandbox.
import { familyFromAmiFamilyField } from '../../ami/families.js';
import type { KubeObject } from '../kube-api/types.js';
import { resolveAmiSelectorTerms } from './amis.js';
import { EC2NODECLASSES, spec, status, writeStatus, type SimContext } from './context.js';
import { conditionOf, withCondition, type Condition } from './objects.js';

type Terms = Parameters<typeof resolveAmiSelectorTerms>[0]['terms'];

// v1beta1 (Karpenter 0.32–0.37) made amiSelectorTerms optional: without them Karpenter used the amiFamily's
// recommended SSM parameter for the control plane's version, which is what an `@latest` alias does in v1.
function termsOf(ctx: SimContext, s: { amiSelectorTerms?: Terms; amiFamily?: string }): Terms {
  if (s.amiSelectorTerms?.length || ctx.karpenterApi === 'v1') return s.amiSelectorTerms ?? [];
  const family = familyFromAmiFamilyField(s.amiFamily ?? 'AL2');
  return family ? [{ alias: `${family}@latest` }] : [];
}

const ALWAYS_READY = ['SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded'];

export function reconcileNodeClasses(ctx: SimContext): void {
  for (const nodeClass of ctx.store.list(EC2NODECLASSES)) {
    if (nodeClass.metadata.deletionTimestamp) continue;
    const generation = nodeClass.metadata.generation ?? 1;
    if (conditionOf(nodeClass, 'AMIsReady')?.observedGeneration === generation) continue;
    reconcileNodeClass(ctx, nodeClass, generation);
  }
}

function reconcileNodeClass(ctx: SimContext, nodeClass: KubeObject, generation: number): void {
  const now = ctx.clock.wall();
  const s = spec<{ amiSelectorTerms?: Terms; amiFamily?: string }>(nodeClass);
  const { amis, message } = resolveAmiSelectorTerms({
    terms: termsOf(ctx, s),
    amiFamily: s.amiFamily,
    catalog: ctx.catalog,
    controlPlaneVersion: ctx.controlPlaneVersion,
    now,
    hiddenImageIds: ctx.faults.hiddenImageIds,
  });
  let conditions = status<{ conditions?: Condition[] }>(nodeClass).conditions;
  for (const type of ALWAYS_READY) conditions = withCondition(conditions, { type, status: 'True', reason: type, message: '', observedGeneration: generation }, now);
  const ready = amis.length > 0;
  conditions = withCondition(
    conditions,
    ready
      ? { type: 'AMIsReady', status: 'True', reason: 'AMIsReady', message: '', observedGeneration: generation }
      : { type: 'AMIsReady', status: 'False', reason: 'AMINotFound', message: message ?? 'AMISelector did not match any AMIs', observedGeneration: generation },
    now,
  );
  conditions = withCondition(
    conditions,
    ready
      ? { type: 'Ready', status: 'True', reason: 'Ready', message: '', observedGeneration: generation }
      : { type: 'Ready', status: 'False', reason: 'UnhealthyDependents', message: 'AMIsReady=False', observedGeneration: generation },
    now,
  );
  // With nothing resolved Karpenter sets status.amis to nil (pkg/controllers/nodeclass/ami.go), so drift cannot
  // be computed and no NodeClaim becomes Drifted: a bad AMI stalls a rollout rather than breaking nodes.
  const { amis: _previous, ...rest } = status(nodeClass);
  writeStatus(ctx, EC2NODECLASSES, nodeClass, {
    ...rest,
    ...(ready
      ? { amis: amis.map((a) => ({ id: a.id, name: a.name, requirements: a.requirements, ...(a.deprecated ? { deprecated: true } : {}) })) }
      : {}),
    conditions,
  });
  ctx.log(ready ? `discovered amis for ec2nodeclass ${nodeClass.metadata.name}: ${amis.map((a) => a.id).join(', ')}` : `ec2nodeclass ${nodeClass.metadata.name}: AMINotFound`);
}
