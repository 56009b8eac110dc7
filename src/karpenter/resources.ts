// Where each kind karp-drift reads lives in the API, and how its objects become views (convert.ts). The Karpenter
// kinds are addressed at the version the cluster serves (cluster/discovery.ts), never assumed to be v1.
import { eventView, nodeClaimView, nodeClassView, nodePoolView, nodeView, pdbView, podView, type ApiObject } from './convert.js';
import type { EventView, KarpenterApi, NodeClaimView, NodeClassView, NodePoolView, NodeView, PdbView, PodView } from './views.js';

export interface Resource<V> {
  kind: string;
  /** "nodeclaims.karpenter.sh", as RBAC and kubectl name it */
  resource: string;
  /** The collection: /apis/karpenter.sh/v1/nodeclaims */
  path: string;
  /** "NodeClaims", for messages */
  plural: string;
  view: (o: ApiObject) => V;
}

export function karpenterResources(api: KarpenterApi): {
  nodeClasses: Resource<NodeClassView>;
  nodePools: Resource<NodePoolView>;
  nodeClaims: Resource<NodeClaimView>;
} {
  return {
    nodeClasses: {
      kind: 'EC2NodeClass',
      resource: 'ec2nodeclasses.karpenter.k8s.aws',
      path: `/apis/karpenter.k8s.aws/${api}/ec2nodeclasses`,
      plural: 'EC2NodeClasses',
      view: nodeClassView,
    },
    nodePools: { kind: 'NodePool', resource: 'nodepools.karpenter.sh', path: `/apis/karpenter.sh/${api}/nodepools`, plural: 'NodePools', view: nodePoolView },
    nodeClaims: { kind: 'NodeClaim', resource: 'nodeclaims.karpenter.sh', path: `/apis/karpenter.sh/${api}/nodeclaims`, plural: 'NodeClaims', view: nodeClaimView },
  };
}

export const NODES: Resource<NodeView> = { kind: 'Node', resource: 'nodes', path: '/api/v1/nodes', plural: 'Nodes', view: nodeView };
export const PODS: Resource<PodView> = { kind: 'Pod', resource: 'pods', path: '/api/v1/pods', plural: 'Pods', view: podView };
export const EVENTS: Resource<EventView> = { kind: 'Event', resource: 'events', path: '/api/v1/events', plural: 'Events', view: eventView };
export const PDBS: Resource<PdbView> = {
  kind: 'PodDisruptionBudget',
  resource: 'poddisruptionbudgets.policy',
  path: '/apis/policy/v1/poddisruptionbudgets',
  plural: 'PodDisruptionBudgets',
  view: pdbView,
};

/**
 * Events are read per reason, the reasons the diagnosis keeps (rollout/snapshot.ts `KARPENTER_EVENT_REASONS`), each
 * with its own `fieldSelector=reason=<R>` in all namespaces: a field selector cannot OR, and the alternative, every
 * event of the cluster filtered here, is the largest and busiest collection a 50,000-pod cluster has (every pod
 * start, pull and probe failure), almost none of it Karpenter's. Nor is `source=karpenter` used: events written
 * through events.k8s.io/v1 have no `source`, only `reportingController`.
 */