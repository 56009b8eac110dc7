// A scenario's workloads as their controllers left them: a Deployment's pods (owned by its ReplicaSet) or a
// DaemonSet's pods, scheduled and Running, plus the PodDisruptionBudget someone applied with kubectl. apps/v1 is not
// served, so the owners exist only as ownerReferences, which is all Karpenter reads of them. A `pinnedToNode`
// workload is bare pods instead, each held to its node by a kubernetes.io/hostname nodeSelector, as debugging and
// agent pods are (mirrord's agents, up to its Operator 3.213): no controller recreates them, and no other node fits.
import { UsageError } from '../../errors.js';
import { daemonAffinity } from '../karpenter/daemonsets.js';
import { DO_NOT_DISRUPT } from '../../karpenter/labels.js';
import { CRASHING_COMMAND, rfc3339 } from '../karpenter/objects.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';
import { kubectlApply } from './field-managers.js';
import { generatedName, hexDigits, seededUid, templateHash } from './names.js';
import { seededRandom } from './random.js';
import type { BuiltNode } from './nodes.js';
import type { ScenarioWorkload } from './schema.js';

const IMAGE = 'public.ecr.aws/nginx/nginx:1.27';

// The tolerations the DefaultTolerationSeconds admission plugin adds to every pod, and those the DaemonSet
// controller adds to its pods (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations).
const DEFAULT_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];
const DAEMON_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

export function ensureNamespace(store: KubeStore, name: string): void {
  if (store.get('namespaces', name)) return;
  store.create(
    'namespaces',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    { manager: 'kubectl-create' },
  );
}

const HOSTNAME = 'kubernetes.io/hostname';

/** DaemonSet pods' requests when the scenario gives none: a small agent. */
export const DAEMON_REQUESTS = { cpu: '100m', memory: '128Mi' } as const;

/** The nodes of `nodes` the workload's nodeSelector matches: its pods go to them round-robin. */
export function workloadNodes(store: KubeStore, w: ScenarioWorkload, nodes: BuiltNode[]): BuiltNode[] {
  const labelsOf = (n: BuiltNode) => store.get('nodes', n.nodeName)?.metadata.labels ?? {};
  const selector = w.nodeSelector ?? {};
  return nodes.filter((n) => Object.entries(selector).every(([k, v]) => labelsOf(n)[k] === v));
}

/** How many pods the workload puts on each node (its round-robin over `workloadNodes`). */
export function podsPerNode(store: KubeStore, w: ScenarioWorkload, nodes: BuiltNode[]): Map<string, number> {
  const onNodes = workloadNodes(store, w, nodes);
  const counts = new Map<string, number>();
  const count = w.daemonSet ? onNodes.length : (w.replicas ?? 0);
  for (let j = 0; j < count && onNodes.length > 0; j++) {
    const node = onNodes[j % onNodes.length]!.nodeName;
    counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  return counts;
}

/**
 * Creates the workload's pods spread round-robin over those of `nodes` its nodeSelector matches; returns how many.
 * Throws when none matches and the workload has replicas. A Deployment's pods select their NodePool
 * (`karpenter.sh/nodepool`), as workloads in a cluster of several NodePools do, so Karpenter and kube-scheduler keep
 * them there.
 */
export function buildWorkloadPods(
  store: KubeStore,
  seed: number,
  w: ScenarioWorkload,
  nodes: BuiltNode[],
  now: Date,
  /** Names the cluster uses: the simulator later names recreated pods against the same set. */
  taken: Set<string>,
  requests: { cpu: string; memory: string },
): number {
  const labelsOf = (n: BuiltNode) => store.get('nodes', n.nodeName)?.metadata.labels ?? {};
  const selector = w.nodeSelector ?? {};
  const onNodes = workloadNodes(store, w, nodes);
  if (onNodes.length === 0) {
    if (nodes.length > 0 && !w.daemonSet && (w.replicas ?? 0) > 0) {
      const wanted = Object.entries(selector).map(([k, v]) => `${k}=${v}`);
      throw new UsageError(
        `workload ${w.namespace}/${w.name}: no node of nodePool "${w.nodePool}" has the labels of its nodeSelector (${wanted.join(', ')})`,
      );
    }
    return 0;
  }
  const rng = seededRandom(seed, `workload/${w.namespace}/${w.name}`);
  const hash = templateHash(rng);
  const owner = w.daemonSet
    ? {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        name: w.name,
        uid: seededUid(rng),
        controller: true,
        blockOwnerDeletion: true,
      }
    : {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: `${w.name}-${hash}`,
        uid: seededUid(rng),
        controller: true,
        blockOwnerDeletion: true,
      };
  const labels: Record<string, string> = w.daemonSet
    ? { app: w.name, 'controller-revision-hash': hash, 'pod-template-generation': '1' }
    : w.pinnedToNode
      ? { app: w.name }
      : { app: w.name, 'pod-template-hash': hash };
  const count = w.daemonSet ? onNodes.length : (w.replicas ?? 0);
  const started = rfc3339(now);
  const imageID = `${IMAGE.split(':')[0]}@sha256:${hexDigits(rng, 64)}`;
  for (let j = 0; j < count; j++) {
    const node = onNodes[j % onNodes.length] as BuiltNode;
    const name = generatedName(rng, `${w.pinnedToNode ? w.name : owner.name}-`, taken);
    const nodeSelector = {
      ...(w.daemonSet || w.pinnedToNode ? {} : { 'karpenter.sh/nodepool': w.nodePool }),
      ...selector,
      ...(w.pinnedToNode ? { [HOSTNAME]: labelsOf(node)[HOSTNAME] ?? '' } : {}),
    };
    const podIP = `${node.ip.split('.').slice(0, 3).join('.')}.${rng.int(1, 254)}`;
    const ready = (type: string) => !w.crashLooping || (type !== 'Ready' && type !== 'ContainersReady');
    const condition = (type: string) => ({
      type,
      status: ready(type) ? 'True' : 'False',
      lastProbeTime: null,
      lastTransitionTime: started,
      ...(ready(type) ? {} : { reason: 'ContainersNotReady', message: `containers with unready status: [${w.name}]` }),
    });
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: w.namespace,
        // Every pod gets its own copies: the store keeps objects as given, and a simulator may edit one pod's.
        labels: { ...labels },
        ...(w.doNotDisrupt !== false
          ? { annotations: { [DO_NOT_DISRUPT]: w.doNotDisrupt === true ? 'true' : w.doNotDisrupt } }
          : {}),
        ...(w.pinnedToNode ? {} : { ownerReferences: [{ ...owner }] }),
      },
      spec: {
        containers: [
          {
            name: w.name,
            image: IMAGE,
            ...(w.crashLooping ? { command: CRASHING_COMMAND } : {}),
            resources: { requests: { ...requests } },
          },
        ],
        ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
        nodeName: node.nodeName,
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        serviceAccountName: 'default',
        terminationGracePeriodSeconds: 30,
        tolerations: (w.daemonSet ? DAEMON_TOLERATIONS : DEFAULT_TOLERATIONS).map((t) => ({ ...t })),
        ...(w.daemonSet ? { affinity: daemonAffinity(node.nodeName) } : {}),
      },
      status: {
        phase: 'Running',
        conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
        hostIP: node.ip,
        podIP,
        podIPs: [{ ip: podIP }],
        startTime: started,
        qosClass: 'Burstable',
        containerStatuses: [
          {
            name: w.name,
            image: IMAGE,
            imageID,
            containerID: `containerd://${hexDigits(rng, 64)}`,
            ...(w.crashLooping
              ? { ready: false, started: false, restartCount: 7, state: crashLoopBackOff(w.name) }
              : { ready: true, started: true, restartCount: 0, state: { running: { startedAt: started } } }),
          },
        ],
      },
    };
    store.create('pods', pod, { wholeObject: true });
  }
  return count;
}

function crashLoopBackOff(name: string): Record<string, unknown> {
  const message = `back-off 5m0s restarting failed container=${name}`;
  return { waiting: { reason: 'CrashLoopBackOff', message } };
}

export function buildPdb(store: KubeStore, w: ScenarioWorkload): KubeObject | undefined {
  if (!w.pdb) return undefined;
  const limit =
    w.pdb.maxUnavailable !== undefined
      ? { maxUnavailable: w.pdb.maxUnavailable }
      : { minAvailable: w.pdb.minAvailable };
  const policy = w.pdb.unhealthyPodEvictionPolicy;
  return kubectlApply(store, 'poddisruptionbudgets.policy', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: w.name, namespace: w.namespace },
    spec: {
      ...limit,
      ...(policy !== undefined ? { unhealthyPodEvictionPolicy: policy } : {}),
      selector: { matchLabels: { app: w.name } },
    },
  });
}
