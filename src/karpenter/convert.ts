// API objects (plain JSON, as a list or a watch delivers them) → the views of views.ts. Pure: the inventory and the
// follow loop both convert here, so the two can never disagree about what "initialized" or "deleting" means.
import type { Budget } from './budgets.js';
import { DISRUPTED_TAINT_KEY, DO_NOT_DISRUPT, NODEPOOL_LABEL } from './labels.js';
import { NODE_HOLD_ANNOTATION } from './views.js';
import type {
  AmiSelectorTerm,
  ConditionView,
  EventView,
  FieldOwner,
  LabelSelector,
  ManagedFieldsEntry,
  NodeClaimView,
  NodeClassView,
  NodePoolView,
  NodeView,
  PdbView,
  PodView,
  Requirement,
  TaintView,
} from './views.js';

/** The shape every Kubernetes object shares, loosely typed: conversion tolerates missing fields. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string | Date;
    deletionTimestamp?: string | Date;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ kind?: string; apiVersion?: string; name?: string; controller?: boolean }>;
    managedFields?: ManagedFieldsEntry[];
  };
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

// Names many objects share, one string each: node names (a pod, a NodeClaim and a Node name a node in strings of their
// own: 50,000 pods on 5,000 nodes on `large`) and pods' namespaces. A plan looks pods up by node again and again (the
// nodes that will drift, that run a reschedulable pod, that are Karpenter's) and matches them to the PDBs of their
// namespace: a Set, a Map or === compares two equal strings of different origin character by character, the same
// string at once. Kept here, so the lists and the watches share them, and cleared when large (a long follow of a
// fleet that churns): a name converted after that is merely a copy again, equal all the same.
const SHARED_KEPT = 200_000;
const sharedNames = new Map<string, string>();
function shared(name: string): string {
  const known = sharedNames.get(name);
  if (known !== undefined) return known;
  if (sharedNames.size >= SHARED_KEPT) sharedNames.clear();
  sharedNames.set(name, name);
  return name;
}

const NO_FIELDS: Record<string, unknown> = Object.freeze({});

/** A JSON object (not an array), else undefined. */
function objectOr(v: unknown): Record<string, unknown> | undefined {
  return v != null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The first Ready condition of a Node's or a pod's `status.conditions`, if it has one. */
function readyConditionOf(conditions: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(conditions)) return undefined;
  for (const c of conditions) {
    const r = objectOr(c);
    if (r !== undefined && r.type === 'Ready') return r;
  }
  return undefined;
}

const record = (v: unknown): Record<string, unknown> => objectOr(v) ?? {};
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function conditionsOf(status: unknown): Record<string, ConditionView> {
  // Plain loops and assignments (NodeClaims are converted by the thousand, mostly before V8 compiles this).
  const out: Record<string, ConditionView> = {};
  const conditions = objectOr(status)?.conditions;
  if (!Array.isArray(conditions)) return out;
  for (const c of conditions) {
    const r = objectOr(c);
    if (r === undefined) continue;
    const type = str(r.type);
    if (!type) continue;
    const view = { status: (str(r.status) ?? 'Unknown') as ConditionView['status'], reason: str(r.reason) ?? '', message: str(r.message) ?? '' } as ConditionView;
    const since = str(r.lastTransitionTime);
    if (since) view.lastTransitionTime = since;
    if (typeof r.observedGeneration === 'number') view.observedGeneration = r.observedGeneration;
    out[type] = view;
  }
  return out;
}

function requirements(v: unknown): Requirement[] {
  return list(v).map((x) => {
    const r = record(x);
    const values = list(r.values).filter((s): s is string => typeof s === 'string');
    return { key: str(r.key) ?? '', operator: str(r.operator) ?? '', ...(Array.isArray(r.values) ? { values } : {}) };
  });
}

// managedFields: fieldsV1 is a trie keyed `f:spec` → `f:amiSelectorTerms` (atomic list) or, for a granular list,
// its `k:`/`v:` children under the same key. Owning the key at all means owning (part of) the terms.
function owners(meta: ApiObject['metadata']): FieldOwner[] {
  return (meta?.managedFields ?? [])
    .filter((m) => m.subresource === undefined || m.subresource === '')
    .filter((m) => !karpenterBookkeeping(record(m.fieldsV1)))
    .map((m) => {
      const spec = record(record(m.fieldsV1)['f:spec']);
      return {
        manager: m.manager ?? '',
        operation: m.operation === 'Apply' ? 'Apply' : 'Update',
        ownsAmiSelectorTerms: 'f:amiSelectorTerms' in spec,
        ownsAmiFamily: 'f:amiFamily' in spec,
        ...(typeof m.time === 'string' ? { time: m.time } : {}),
      };
    });
}

const BOOKKEEPING_ANNOTATIONS = new Set([
  'f:karpenter.k8s.aws/ec2nodeclass-hash',
  'f:karpenter.k8s.aws/ec2nodeclass-hash-version',
  'f:karpenter.sh/nodepool-hash',
  'f:karpenter.sh/nodepool-hash-version',
]);
const BOOKKEEPING_FINALIZERS = new Set(['v:"karpenter.k8s.aws/termination"', 'v:"karpenter.sh/termination"']);

/**
 * An entry that holds only Karpenter's own bookkeeping on its objects: the static-drift hash annotations its hash
 * controllers keep (DOMAIN.md §2.2) and its termination finalizer. It owns nothing a manifest sets, so it names no
 * owner: applying a template whole takes nothing from it, and Karpenter never writes a spec field back.
 */
function karpenterBookkeeping(fields: Record<string, unknown>): boolean {
  const { 'f:metadata': metadata, ...rest } = fields;
  if (Object.keys(rest).length > 0 || metadata === undefined) return false;
  const { 'f:annotations': annotations, 'f:finalizers': finalizers, ...other } = record(metadata);
  const only = (v: unknown, allowed: ReadonlySet<string>) => Object.keys(record(v)).every((k) => k === '.' || allowed.has(k));
  return Object.keys(other).length === 0 && only(annotations, BOOKKEEPING_ANNOTATIONS) && only(finalizers, BOOKKEEPING_FINALIZERS);
}

export function nodeClassView(o: ApiObject): NodeClassView {
  const spec = record(o.spec);
  const status = record(o.status);
  return {
    name: o.metadata?.name ?? '',
    uid: o.metadata?.uid ?? '',
    resourceVersion: o.metadata?.resourceVersion ?? '',
    generation: o.metadata?.generation ?? 0,
    ...(str(spec.amiFamily) ? { amiFamily: str(spec.amiFamily) } : {}),
    amiSelectorTerms: list(spec.amiSelectorTerms).map((t) => record(t) as AmiSelectorTerm),
    statusAmis: list(status.amis).map((a) => {
      const r = record(a);
      return {
        id: str(r.id) ?? '',
        ...(str(r.name) ? { name: str(r.name) } : {}),
        requirements: requirements(r.requirements),
        ...(r.deprecated === true ? { deprecated: true } : {}),
      };
    }),
    conditions: conditionsOf(o.status),
    owners: owners(o.metadata),
    labels: o.metadata?.labels ?? {},
    annotations: o.metadata?.annotations ?? {},
  };
}

export function nodePoolView(o: ApiObject): NodePoolView {
  const spec = record(o.spec);
  const template = record(record(spec.template).spec);
  const budgets = record(spec.disruption).budgets;
  return {
    name: o.metadata?.name ?? '',
    uid: o.metadata?.uid ?? '',
    nodeClass: str(record(template.nodeClassRef).name) ?? '',
    ...(Array.isArray(budgets) ? { budgets: budgets.map((b) => record(b) as unknown as Budget) } : {}),
    requirements: requirements(template.requirements),
    conditions: conditionsOf(o.status),
    resourceVersion: o.metadata?.resourceVersion ?? '',
    budgetOwners: budgetOwners(o.metadata),
    labels: o.metadata?.labels ?? {},
    annotations: o.metadata?.annotations ?? {},
  };
}

// `spec.disruption.budgets` is an atomic list: owning `f:budgets` owns all of it.
function budgetOwners(meta: ApiObject['metadata']): NonNullable<NodePoolView['budgetOwners']> {
  return (meta?.managedFields ?? [])
    .filter((m) => (m.subresource === undefined || m.subresource === '') && 'f:budgets' in record(record(record(m.fieldsV1)['f:spec'])['f:disruption']))
    .map((m) => ({ manager: m.manager ?? '', operation: m.operation === 'Apply' ? 'Apply' : 'Update' }));
}

export function nodeClaimView(o: ApiObject): NodeClaimView {
  // Assigned field by field, in the order the views have always had: 5,000 NodeClaims on `large`, read cold.
  const metadata = o.metadata;
  const spec = objectOr(o.spec);
  const status = objectOr(o.status);
  const labels = metadata?.labels ?? {};
  const deletion = str(metadata?.deletionTimestamp);
  const view = { name: metadata?.name ?? '', uid: metadata?.uid ?? '', resourceVersion: metadata?.resourceVersion ?? '' } as NodeClaimView;
  if (labels[NODEPOOL_LABEL]) view.nodePool = labels[NODEPOOL_LABEL];
  const nodeClass = str(objectOr(spec?.nodeClassRef)?.name);
  if (nodeClass) view.nodeClass = nodeClass;
  const imageId = str(status?.imageID);
  if (imageId) view.imageId = imageId;
  const nodeName = str(status?.nodeName);
  if (nodeName) view.nodeName = shared(nodeName);
  const providerId = str(status?.providerID);
  if (providerId) view.providerId = providerId;
  if (labels['kubernetes.io/arch']) view.arch = labels['kubernetes.io/arch'];
  if (labels['node.kubernetes.io/instance-type']) view.instanceType = labels['node.kubernetes.io/instance-type'];
  view.gpu = hasPositive(labels['karpenter.k8s.aws/instance-gpu-count']);
  view.accelerator = hasPositive(labels['karpenter.k8s.aws/instance-accelerator-count']);
  const createdAt = str(metadata?.creationTimestamp);
  if (createdAt) view.createdAt = createdAt;
  view.deleting = deletion !== undefined;
  if (deletion) view.deletionTimestamp = deletion;
  const terminationGracePeriod = str(spec?.terminationGracePeriod);
  if (terminationGracePeriod) view.terminationGracePeriod = terminationGracePeriod;
  view.conditions = conditionsOf(status);
  return view;
}

function hasPositive(v: string | undefined): boolean {
  return v !== undefined && Number(v) > 0;
}

const HOSTNAME = 'kubernetes.io/hostname';

export function nodeView(o: ApiObject): NodeView {
  // Assigned field by field, in the order the views have always had: 5,000 Nodes on `large`, read cold.
  const metadata = o.metadata;
  const spec = objectOr(o.spec);
  const status = objectOr(o.status);
  const labels = metadata?.labels ?? {};
  const annotations = metadata?.annotations;
  const readyCondition = readyConditionOf(status?.conditions) ?? NO_FIELDS;
  const ready = readyCondition.status === 'True';
  const view = { name: shared(metadata?.name ?? ''), uid: metadata?.uid ?? '', resourceVersion: metadata?.resourceVersion ?? '' } as NodeView;
  if (labels[NODEPOOL_LABEL]) view.nodePool = labels[NODEPOOL_LABEL];
  const providerId = str(spec?.providerID);
  if (providerId) view.providerId = providerId;
  const nodeInfo = objectOr(status?.nodeInfo);
  const kubeletVersion = str(nodeInfo?.kubeletVersion);
  if (kubeletVersion) view.kubeletVersion = kubeletVersion;
  const osImage = str(nodeInfo?.osImage);
  if (osImage) view.osImage = osImage;
  view.ready = ready;
  if (!ready) {
    const notReady = { status: str(readyCondition.status) ?? 'Unknown', reason: str(readyCondition.reason) ?? '', message: str(readyCondition.message) ?? '' } as NonNullable<NodeView['notReady']>;
    const since = str(readyCondition.lastTransitionTime);
    if (since) notReady.since = since;
    view.notReady = notReady;
  }
  view.initialized = labels['karpenter.sh/initialized'] === 'true';
  view.doNotDisrupt = annotations?.[DO_NOT_DISRUPT] === 'true';
  const heldBy = annotations?.[NODE_HOLD_ANNOTATION];
  if (heldBy !== undefined) view.heldBy = heldBy;
  const taints: TaintView[] = [];
  if (Array.isArray(spec?.taints)) {
    for (const t of spec.taints as unknown[]) {
      const r = objectOr(t) ?? NO_FIELDS;
      const taint = { key: str(r.key) ?? '' } as TaintView;
      const value = str(r.value);
      if (value) taint.value = value;
      taint.effect = str(r.effect) ?? '';
      taints.push(taint);
    }
  }
  view.taints = taints;
  view.deleting = metadata?.deletionTimestamp !== undefined;
  const createdAt = str(metadata?.creationTimestamp);
  if (createdAt) view.createdAt = createdAt;
  if (labels[HOSTNAME]) view.hostname = labels[HOSTNAME];
  return view;
}

export function pdbView(o: ApiObject): PdbView {
  const status = record(o.status);
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    namespace: shared(o.metadata?.namespace ?? ''),
    name: o.metadata?.name ?? '',
    ...(record(o.spec).selector ? { selector: record(record(o.spec).selector) } : {}),
    disruptionsAllowed: num(status.disruptionsAllowed) ?? 0,
    ...(str(record(o.spec).unhealthyPodEvictionPolicy) ? { unhealthyPodEvictionPolicy: str(record(o.spec).unhealthyPodEvictionPolicy) } : {}),
    ...(num(status.currentHealthy) !== undefined ? { currentHealthy: num(status.currentHealthy) } : {}),
    ...(num(status.desiredHealthy) !== undefined ? { desiredHealthy: num(status.desiredHealthy) } : {}),
    ...(num(status.expectedPods) !== undefined ? { expectedPods: num(status.expectedPods) } : {}),
  };
}

// Every pod of the cluster goes through here (50,000 on `large`, on each read), most of them before V8 has compiled
// it: each field is set on one object in the order the views have always had, and the pod is read with plain loops
// and property reads, no helper objects, arrays or closures (measured cold: about 8 µs a pod became about 5).
export function podView(o: ApiObject): PodView {
  const metadata = o.metadata;
  const spec = objectOr(o.spec);
  const status = objectOr(o.status);
  const owners = metadata?.ownerReferences;
  const annotations = metadata?.annotations;
  const doNotDisrupt = annotations === undefined ? undefined : annotations[DO_NOT_DISRUPT];
  const view = { namespace: shared(metadata?.namespace ?? ''), name: metadata?.name ?? '' } as PodView;
  const nodeName = str(spec?.nodeName);
  if (nodeName) view.nodeName = shared(nodeName);
  view.labels = metadata?.labels ?? {};
  const phase = str(status?.phase);
  if (phase) view.phase = phase;
  const startTime = str(status?.startTime);
  if (startTime) view.startTime = startTime;
  if (typeof doNotDisrupt === 'string') view.doNotDisrupt = doNotDisrupt;
  let daemonSet = false;
  let mirror = false;
  if (Array.isArray(owners)) {
    for (const r of owners) {
      if (r.kind === 'DaemonSet') daemonSet = true;
      // IsOwnedByNode: a v1 Node owner (the kubelet's mirror of a static pod).
      else if (r.kind === 'Node' && r.apiVersion === 'v1') mirror = true;
    }
  }
  view.daemonSet = daemonSet;
  view.mirror = mirror;
  view.toleratesDisrupted = toleratesDisruptedTaint(spec?.tolerations);
  const ready = readyConditionOf(status?.conditions)?.status;
  view.notReady = ready === 'False';
  if (ready === 'True') view.ready = true;
  const createdAt = str(metadata?.creationTimestamp);
  if (createdAt) view.createdAt = createdAt;
  const owner = controllerOf(owners);
  if (owner !== undefined) view.owner = owner;
  if (status !== undefined) containerHealth(status, view);
  view.deleting = metadata?.deletionTimestamp !== undefined;
  const pinnedTo = spec === undefined ? undefined : pinnedNode(spec);
  if (pinnedTo !== undefined) view.pinnedTo = pinnedTo;
  return view;
}


function toleratesDisruptedTaint(tolerations: unknown): boolean {
  if (!Array.isArray(tolerations)) return false;
  // An entry that is not an object reads as an empty toleration, which tolerates every taint.
  for (const t of tolerations) if (toleratesDisrupted(objectOr(t) ?? NO_FIELDS)) return true;
  return false;
}

function controllerOf(owners: NonNullable<ApiObject['metadata']>['ownerReferences']): string | undefined {
  if (!Array.isArray(owners) || owners.length === 0) return undefined;
  let c = owners[0];
  for (const r of owners) {
    if (r.controller === true) {
      c = r;
      break;
    }
  }
  return c?.kind && c.name ? `${c.kind}/${c.name}` : undefined;
}

/** Waiting reasons of a container that is starting normally: not a sign of trouble by themselves. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

/** Restart counts and the first container held back, init containers first (as the kubelet runs them), set on `view`. */
function containerHealth(status: Record<string, unknown>, view: PodView): void {
  let restarts = 0;
  let waiting: PodView['waiting'];
  for (let i = 0; i < 2; i++) {
    const statuses = i === 0 ? status.initContainerStatuses : status.containerStatuses;
    if (!Array.isArray(statuses)) continue;
    for (const s of statuses) {
      const c = objectOr(s);
      if (c === undefined) continue;
      restarts += typeof c.restartCount === 'number' ? c.restartCount : 0;
      if (waiting !== undefined) continue;
      const w = objectOr(objectOr(c.state)?.waiting);
      const reason = str(w?.reason);
      if (reason === undefined || STARTING.has(reason)) continue;
      const last = record(record(c.lastState).terminated);
      const exit = typeof last.exitCode === 'number' ? `exit code ${last.exitCode}${str(last.reason) ? ` (${str(last.reason)})` : ''}` : undefined;
      waiting = {
        container: str(c.name) ?? '',
        reason,
        ...(str(w?.message) ? { message: str(w?.message) } : {}),
        ...(exit ? { lastExit: exit } : {}),
      };
    }
  }
  if (restarts > 0) view.restarts = restarts;
  if (waiting) view.waiting = waiting;
}

// corev1 Toleration.ToleratesTaint for the taint {key: karpenter.sh/disrupted, effect: NoSchedule} (no value).
function toleratesDisrupted(t: Record<string, unknown>): boolean {
  const effect = str(t.effect) ?? '';
  const key = str(t.key) ?? '';
  if (effect !== '' && effect !== 'NoSchedule') return false;
  if (key !== '' && key !== DISRUPTED_TAINT_KEY) return false;
  const operator = str(t.operator) ?? '';
  if (operator === 'Exists') return true;
  return (operator === '' || operator === 'Equal') && (str(t.value) ?? '') === '';
}

interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

// The scheduler ANDs nodeSelector with required affinity and ORs the affinity's terms: the pod is pinned when the
// nodeSelector names a hostname, or every term allows exactly one and the same node.
function pinnedNode(spec: Record<string, unknown>): string | undefined {
  const bySelector = str(objectOr(spec.nodeSelector)?.[HOSTNAME]);
  if (bySelector !== undefined) return bySelector;
  if (spec.affinity === undefined) return undefined; // most pods: nothing more to read
  const required = record(record(record(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution);
  const terms = list(required.nodeSelectorTerms).map(record);
  const one = (reqs: unknown, key: string) =>
    (list(reqs) as NodeSelectorRequirement[]).flatMap((r) =>
      r.key === key && r.operator === 'In' && r.values?.length === 1 ? [r.values[0]!] : [],
    );
  const perTerm = terms.map((t) => [...one(t.matchExpressions, HOSTNAME), ...one(t.matchFields, 'metadata.name')][0]);
  const first = perTerm[0];
  return first !== undefined && perTerm.every((n) => n === first) ? first : undefined;
}

export function eventView(o: ApiObject): EventView {
  const involved = record(o.involvedObject);
  return {
    uid: o.metadata?.uid ?? '',
    namespace: o.metadata?.namespace ?? '',
    reason: str(o.reason) ?? '',
    message: str(o.message) ?? '',
    ...(str(o.type) ? { type: str(o.type) } : {}),
    ...(str(involved.kind) ? { involvedKind: str(involved.kind) } : {}),
    ...(str(involved.name) ? { involvedName: str(involved.name) } : {}),
    count: typeof o.count === 'number' ? o.count : 1,
    ...(str(o.firstTimestamp) ? { firstTimestamp: str(o.firstTimestamp) } : {}),
    ...(str(o.lastTimestamp ?? o.eventTime) ? { lastTimestamp: str(o.lastTimestamp ?? o.eventTime) } : {}),
  };
}

/** Does a label selector select these labels (In, NotIn, Exists, DoesNotExist)? An absent selector selects nothing. */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  // A loop over the keys, not Object.entries: a plan matches every pod of the nodes that drift against the PDBs of
  // its namespace (50,000 pods on `large`), and the pairs would be garbage at once.
  const matchLabels = selector.matchLabels ?? {};
  for (const k in matchLabels) if (Object.hasOwn(matchLabels, k) && labels[k] !== matchLabels[k]) return false;
  return (
    (selector.matchExpressions ?? []).every((e) => {
      const value = labels[e.key];
      if (e.operator === 'In') return value !== undefined && (e.values ?? []).includes(value);
      if (e.operator === 'NotIn') return value === undefined || !(e.values ?? []).includes(value);
      if (e.operator === 'Exists') return value !== undefined;
      return value === undefined;
    })
  );
}
