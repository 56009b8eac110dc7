import type { CustomResourceDefinition } from './crds.js';
import type { FieldCause } from './crd-validation.js';
import { groupResource } from './resources.js';
import type { KubeObject, ResourceInfo } from './types.js';

// What kube-apiserver's per-kind strategies (pkg/registry/<group>/<kind>/strategy.go, apiextensions-apiserver
// registry/customresource/strategy.go) decide for the sandbox's kinds: which track generation, what create resets,
// what an update keeps from the stored object, and when a change counts as a spec change.

// Kinds whose registries set metadata.generation: pods, nodes, namespaces and events do not (their strategies
// never touch it); PodDisruptionBudgets, CRDs and every custom resource do.
const GENERATION_TRACKED = new Set(['poddisruptionbudgets.policy', 'customresourcedefinitions.apiextensions.k8s.io']);
export const tracksGeneration = (r: ResourceInfo) => r.crd !== undefined || GENERATION_TRACKED.has(groupResource(r));

// names.SimpleNameGenerator: 5 characters from an alphabet without vowels or look-alikes.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const randomSuffix = () =>
  Array.from({ length: 5 }, () => NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)]).join('');

export const equalJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const cause = (reason: FieldCause['reason'], field: string, message: string): FieldCause => ({
  reason,
  field,
  message,
});

export const isCrd = (r: ResourceInfo) =>
  r.group === 'apiextensions.k8s.io' && r.resource === 'customresourcedefinitions';

// A namespace is removed by the namespace controller once its content is gone; a CRD by the CRD finalizer once its
// custom resources are: both behave as if they carried a finalizer (spec.finalizers "kubernetes",
// "customresourcecleanup.apiextensions.k8s.io").
export const holdsContent = (r: ResourceInfo) => (r.resource === 'namespaces' && !r.group) || isCrd(r);

/** What the strategies' PrepareForUpdate keep from the old object. */
export function scoped(
  r: ResourceInfo,
  old: KubeObject,
  input: KubeObject,
  options: { subresource?: 'status'; wholeObject?: boolean },
): KubeObject {
  const keep = [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'generation',
    'resourceVersion',
  ] as const;
  if (options.subresource === 'status') {
    // Status writes change status only; metadata stays as stored (managedFields aside).
    const metadata = {
      ...old.metadata,
      managedFields: input.metadata.managedFields ?? old.metadata.managedFields,
    };
    return { ...old, metadata, status: input.status };
  }
  const metadata: Record<string, unknown> = { ...input.metadata };
  for (const field of keep) {
    if (old.metadata[field] === undefined) delete metadata[field];
    else metadata[field] = old.metadata[field];
  }
  const object = {
    ...input,
    apiVersion: old.apiVersion,
    kind: old.kind,
    metadata,
  } as KubeObject;
  if (r.subresources.status && !options.wholeObject) {
    if (old.status === undefined) delete object.status;
    else object.status = old.status;
  }
  return object;
}

// The custom resource strategy bumps generation when anything outside metadata and status changes (status too
// when there is no status subresource); the built-in kinds that track generation do so for spec.
export function specChanged(r: ResourceInfo, old: KubeObject, updated: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status, ...rest } = o;
    return r.crd && !r.subresources.status ? { ...rest, status } : rest;
  };
  return !equalJson(strip(old), strip(updated));
}

export function withoutVolatile(o: KubeObject): unknown {
  const managedFields = o.metadata.managedFields?.map((m) => ({
    ...m,
    time: undefined,
  }));
  return {
    ...o,
    metadata: { ...o.metadata, resourceVersion: undefined, managedFields },
  };
}

// The strategies' PrepareForCreate: custom resources with a status subresource and PDBs drop status, pods start
// Pending, namespaces start Active with the "kubernetes" finalizer, and CRDs are Established at once (there is no
// controller to wait for) with their names accepted. Nodes keep the status they are created with.
export function defaultsOnCreate(r: ResourceInfo, object: KubeObject): KubeObject {
  if ((r.crd && r.subresources.status) || (r.resource === 'poddisruptionbudgets' && r.group === 'policy')) {
    const { status: _status, ...rest } = object;
    return rest;
  }
  if (r.resource === 'pods' && !r.group) return { ...object, status: { phase: 'Pending' } };
  if (r.resource === 'namespaces' && !r.group) {
    return {
      ...object,
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
  }
  if (isCrd(r)) {
    const crd = object as unknown as CustomResourceDefinition;
    const storage = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? 'v1';
    const time = object.metadata.creationTimestamp;
    const condition = (type: string, reason: string, message: string) => ({
      type,
      status: 'True',
      lastTransitionTime: time,
      reason,
      message,
    });
    return {
      ...object,
      status: {
        acceptedNames: crd.spec.names,
        conditions: [
          condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
          condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
        ],
        storedVersions: [storage],
      },
    };
  }
  return object;
}
