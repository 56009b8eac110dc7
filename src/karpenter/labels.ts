// Karpenter's well-known label, annotation and taint keys (kubernetes-sigs/karpenter v1.14.1 `pkg/apis/v1/labels.go`,
// `taints.go`), in one place for the views, the holds and the simulator.

/** The label on a NodeClaim and its Node naming the NodePool that owns them. */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
/** On a Node or a Pod: Karpenter never disrupts it voluntarily (`DoNotDisruptAnnotationKey`). */
export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
/** The NoSchedule taint Karpenter puts on a Node it has started to disrupt (`DisruptedTaintKey`). */
export const DISRUPTED_TAINT_KEY = 'karpenter.sh/disrupted';
