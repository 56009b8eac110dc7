// The shape of a scenario file (zod) and the types it gives, below the parser (schema.ts) and the cross-reference
// checks (checks.ts) that both read them.
import * as z from 'zod'; // a namespace import: a bundle keeps only the parts of zod that are used
import { AMI_FAMILIES, ARCHES } from '../../ami/families.js';
import { KUBERNETES_MINORS } from '../aws/releases.js';
import { BAD_AMI_SYMPTOMS } from '../karpenter/context.js';

/** Who applies a class or pool: a person's `kubectl apply`, or a GitOps tool's server-side sync. */
export const FIELD_MANAGERS = ['kubectl', 'argocd', 'flux'] as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const name = z.string().max(63).regex(DNS_LABEL, 'must be a DNS label: lowercase letters, digits and "-"');

// YAML reads an unquoted 1.30 as the number 1.3, which is the mistake worth naming.
const kubernetesVersion = z
  .string({ error: (issue) => (issue.input === undefined ? undefined : 'must be a quoted string such as "1.30"') })
  .refine((v) => KUBERNETES_MINORS.includes(v), {
    error: `must be a Kubernetes version the sandbox publishes AMIs for (${KUBERNETES_MINORS[0]}–${KUBERNETES_MINORS.at(-1)})`,
  });

const intOrPercent = z.custom<number | string>(
  (v) =>
    (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && /^(100|[1-9]?\d)%$/.test(v)),
  { error: 'must be a whole number or a percentage such as "50%"' },
);

const seconds = z.number().min(0);

const timing = z.strictObject({
  driftDetectionSeconds: seconds.default(5),
  launchSeconds: seconds.default(60),
  registerSeconds: z.tuple([seconds, seconds]).default([30, 90]),
  initializeSeconds: seconds.default(10),
  podStartSeconds: seconds.default(5),
  podScheduleSeconds: seconds.default(1),
  registrationTimeoutMinutes: seconds.default(15),
  disruptionPollSeconds: seconds.default(10),
});

const nodeClass = z.strictObject({
  name,
  family: z.enum(AMI_FAMILIES),
  kubernetesVersion,
  /**
   * The release the nodes run: a release tag (`v20240917`, Bottlerocket `1.20.4`) or `latest`; absent, the newest.
   * With `pin: alias`, absent pins the alias to the newest tag, while `latest` writes `<family>@latest`.
   */
  release: z.string().min(1).optional(),
  /** `id`: one id term per arch plus amiFamily; `alias`: `<family>@<release>`, resolved against the control plane. */
  pin: z.enum(['id', 'alias']).default('id'),
  /**
   * `kubectl`: client-side apply; `argocd`, `flux`: server-side apply by Argo CD's or Flux's controller, with its
   * tracking metadata (and synced from `gitops.dir` when the scenario has `gitops`).
   */
  fieldManager: z.enum(FIELD_MANAGERS).default('kubectl'),
});

// karpenter.sh_nodepools.yaml: spec.disruption.budgets[] (v1; v1beta1 has no reasons).
const budget = z.strictObject({
  nodes: z
    .string({ error: 'must be a quoted string such as "10%" or "0"' })
    .regex(/^((100|[0-9]{1,2})%|[0-9]+)$/, 'must be a count or a percentage such as "10%"'),
  reasons: z
    .array(z.enum(['Underutilized', 'Empty', 'Drifted']))
    .min(1)
    .optional(),
  schedule: z.string().min(1).optional(),
  duration: z
    .string()
    .regex(/^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/, 'must be hours and minutes such as "8h" or "1h30m"')
    .optional(),
});

const nodePool = z.strictObject({
  name,
  nodeClass: z.string(),
  nodes: z.number().int().min(0).max(20_000),
  /** Nodes alternate over these architectures. */
  arch: z.array(z.enum(ARCHES)).min(1).default(['amd64']),
  /** A GPU instance type (g5.xlarge) and the class's nvidia AMI. */
  gpu: z.boolean().default(false),
  /** Absent: the CRD default, one budget of 10%. */
  budgets: z.array(budget).max(50).optional(),
  terminationGracePeriod: z
    .string()
    .regex(/^([0-9]+(s|m|h))+$/, 'must be a duration such as "24h" or "90m"')
    .optional(),
  /** How many of the pool's nodes carry `karpenter.sh/do-not-disrupt: "true"`. */
  doNotDisruptNodes: z.number().int().min(0).default(0),
  /** spec.disruption.consolidationPolicy (v1; absent: WhenEmptyOrUnderutilized); consolidation is not simulated. */
  consolidationPolicy: z.enum(['WhenEmpty', 'WhenEmptyOrUnderutilized']).optional(),
  /** spec.disruption.consolidateAfter (v1; absent: 0s): a duration, or `Never` (the nodes are then Unconsolidatable). */
  consolidateAfter: z
    .string()
    .regex(/^(([0-9]+(s|m|h))+|Never)$/, 'must be a duration such as "30s" or "Never"')
    .optional(),
  /**
   * `kubectl`: client-side apply; `argocd`, `flux`: server-side apply by Argo CD's or Flux's controller, with its
   * tracking metadata, so argocd-controller (kustomize-controller) owns every field the manifest has
   * (`spec.disruption.budgets` only when `budgets` is given).
   */
  fieldManager: z.enum(FIELD_MANAGERS).default('kubectl'),
});

const workload = z.strictObject({
  name,
  namespace: name.default('default'),
  nodePool: z.string(),
  /** Required unless daemonSet (one pod per node of the pool). */
  replicas: z.number().int().min(0).optional(),
  pdb: z
    .strictObject({
      maxUnavailable: intOrPercent.optional(),
      minAvailable: intOrPercent.optional(),
      unhealthyPodEvictionPolicy: z.enum(['IfHealthyBudget', 'AlwaysAllow']).optional(),
    })
    .optional(),
  /** true: `karpenter.sh/do-not-disrupt: "true"`; a string: that value as written (e.g. "30m", or "True"). */
  doNotDisrupt: z.union([z.boolean(), z.string()]).default(false),
  /** The pods' container keeps crashing: never Ready (CrashLoopBackOff), and so are the pods that replace them. */
  crashLooping: z.boolean().default(false),
  daemonSet: z.boolean().default(false),
  /** spec.nodeSelector of the pods; they run on the pool's nodes that have these labels. */
  nodeSelector: z.record(z.string().min(1), z.string()).optional(),
  /** Bare pods (no owner) held to their node by a kubernetes.io/hostname nodeSelector, as debugging and agent pods are. */
  pinnedToNode: z.boolean().default(false),
  /**
   * The container's resource requests. Absent: DaemonSet pods ask 100m and 128Mi; other pods an equal share of what a
   * node of the pool leaves after its DaemonSets, for the most pods any of its nodes runs (build.ts), so each node is
   * as full as consolidation would leave it and none has room for another node's pods.
   */
  requests: z
    .strictObject({
      cpu: z.string().regex(/^[0-9]+(\.[0-9]+)?m?$/, 'must be a CPU quantity such as "500m" or "2"'),
      memory: z.string().regex(/^[0-9]+(Ki|Mi|Gi)?$/, 'must be a memory quantity such as "512Mi" or "2Gi"'),
    })
    .optional(),
});

const faults = z.strictObject({
  launchFailures: z
    .strictObject({
      nodePool: z.string(),
      count: z.number().int().min(1).default(1),
      reason: z.string().min(1).default('InsufficientCapacityError'),
    })
    .optional(),
  /** The NodePool's new NodeClaims launch but their kubelets never register (liveness deletes them). */
  neverRegisters: z.strictObject({ nodePool: z.string() }).optional(),
  slowDrain: z.strictObject({ podTerminationSeconds: z.number().positive() }).optional(),
  /** The simulated Karpenter cannot see the AMIs the class is later changed to (not shared with the account). */
  amiNotFound: z.strictObject({ nodeClass: z.string() }).optional(),
  apiErrors: z
    .strictObject({
      rate: z.number().gt(0).max(1),
      status: z.union([z.literal(500), z.literal(429)], { error: 'must be 500 or 429' }).default(500),
    })
    .optional(),
  watchDrops: z.strictObject({ everySeconds: z.number().positive() }).optional(),
  /**
   * A bad AMI release: only nodes launched from it misbehave (karpenter/bad-ami.ts), as `symptom` says: they never
   * register, register but never go Ready, go NotReady after initializing, crash-loop every container, or never launch.
   * `release` defaults to the newest
   * release of the control plane's minor for each class's family (what `upgrade --to <minor>` pins by default);
   * `nodeClasses` defaults to every class; `afterSeconds` (not-ready only, default 60) counts from initialization.
   */
  badAmi: z
    .strictObject({
      release: z.string().min(1).optional(),
      symptom: z.enum(BAD_AMI_SYMPTOMS, { error: (issue) => (issue.input === undefined ? 'required' : undefined) }),
      nodeClasses: z.array(z.string()).min(1).optional(),
      afterSeconds: seconds.optional(),
    })
    .optional(),
});

/**
 * The GitOps stand-in (sandbox/gitops/): every `intervalSeconds` (simulated) the manifests in `dir` are applied with
 * server-side apply under `tool`'s field manager, forced, so a field someone else changed is put back (self-heal).
 * Without `dir`, the sandbox writes the scenario's `fieldManager: <tool>` objects into a temporary one.
 */
const gitops = z.strictObject({
  tool: z.enum(['argocd', 'flux']),
  dir: z.string().min(1).optional(),
  intervalSeconds: z.number().positive().default(180),
});

export const scenarioSchema = z.strictObject({
  name,
  description: z.string().default(''),
  /** One line for `sandbox --help` (53 characters fit beside the longest built-in name at 80 columns). */
  summary: z.string().default(''),
  /** /version of the API server; aliases resolve against it. */
  controlPlaneVersion: kubernetesVersion,
  /** 1.x serves the v1 API; 0.32–0.37 means a v1beta1 install. */
  karpenterVersion: z.string({ error: 'must be a quoted string such as "1.14.1"' }).default('1.14.1'),
  /** Simulated seconds per real second. */
  speed: z.number().positive().default(60),
  seed: z.number().int().default(1),
  clusterName: name.default('sandbox'),
  timing: timing.prefault({}),
  nodeClasses: z.array(nodeClass).min(1),
  nodePools: z.array(nodePool).min(1),
  workloads: z.array(workload).default([]),
  faults: faults.prefault({}),
  gitops: gitops.optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioNodeClass = Scenario['nodeClasses'][number];
export type ScenarioNodePool = Scenario['nodePools'][number];
export type ScenarioWorkload = Scenario['workloads'][number];
export type ScenarioBadAmi = NonNullable<Scenario['faults']['badAmi']>;

