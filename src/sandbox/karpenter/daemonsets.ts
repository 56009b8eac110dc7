// The DaemonSet controller, reduced to what a rollout needs (kubernetes pkg/controller/daemon): each Node that joins
// gets a pod of every DaemonSet that runs on its NodePool, and the kubelet starts it like any other pod, so a drift's
// replacements carry their agents as real nodes do (and, on a bad AMI, crash with them). apps/v1 is not served, so a
// DaemonSet is known by its pods only: the first one seen is its template, and the NodePools of their nodes are where
// it runs (a scenario's DaemonSet covers its workload's NodePool); indexes.ts keeps them.
import type { KubeObject } from '../kube-api/types.js';
import { generatedName } from '../scenarios/names.js';
import { key, spec, type SimContext } from './context.js';
import { daemonSetOwner } from './indexes.js';
import { rfc3339 } from './objects.js';

// The DaemonSet controller pins each pod to its node by name (daemon/util ReplaceDaemonSetPodNodeNameNodeAffinity).
export function daemonAffinity(nodeName: string): Record<string, unknown> {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } };
}

/** Gives each node that joined the pods of the DaemonSets of its NodePool that it does not have yet. */
export function reconcileDaemonSets(ctx: SimContext): void {
  const { daemonSets } = ctx;
  for (const nodeName of daemonSets.joined) {
    if (ctx.budget.exhausted()) return;
    daemonSets.joined.delete(nodeName);
    const node = ctx.store.get('nodes', nodeName);
    const pool = node?.metadata.labels?.['karpenter.sh/nodepool'];
    if (!node || node.metadata.deletionTimestamp || pool === undefined) continue;
    const present = new Set(ctx.store.objects.podsOnNode(nodeName).map((p) => daemonSetOwner(p)?.uid));
    for (const [uid, daemonSet] of daemonSets.byUid)
      if (daemonSet.nodePools.has(pool) && !present.has(uid)) createDaemonPod(ctx, daemonSet.template, nodeName);
  }
}

// Bound by the controller itself, as its pods' node affinity leaves the scheduler no other choice.
function createDaemonPod(ctx: SimContext, template: KubeObject, nodeName: string): void {
  const { metadata } = template;
  const owner = daemonSetOwner(template)!;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: generatedName(ctx.rng, `${owner.name}-`, ctx.taken.names),
      namespace: metadata.namespace,
      labels: { ...metadata.labels },
      ...(metadata.annotations ? { annotations: { ...metadata.annotations } } : {}),
      ownerReferences: (metadata.ownerReferences ?? []).map((r) => ({ ...r })),
    },
    spec: { ...spec<Record<string, unknown>>(template), nodeName, affinity: daemonAffinity(nodeName) },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: rfc3339(ctx.clock.wall()) }],
    },
  };
  const created = ctx.store.create('pods', pod, { wholeObject: true, manager: 'kube-controller-manager' });
  ctx.memory.starting.set(key(created), ctx.clock.now().getTime() + ctx.timing.podStartSeconds * 1000);
}
