import { pdbStatusOf } from './pdb.js';
import { aggregatedRules, sameRules } from './rbac-aggregation.js';
import type { Role } from './rbac.js';
import type { KubeStore, PropagationPolicy, StoreControllers } from './registry-store.js';
import { groupResource, groupVersion } from './resources.js';
import type { KubeObject, ResourceInfo } from './types.js';

// The controllers a real control plane runs behind the API that karp-drift can observe, done synchronously after
// each write: the garbage collector (pkg/controller/garbagecollector: ownerReferences cascade for Background and
// Foreground, references stripped for Orphan), the namespace controller (content deleted, then the namespace),
// the CRD finalizer (custom resources deleted, then the CRD), the disruption controller's PDB status (pdb.ts), and
// the clusterrole-aggregation controller (rbac-aggregation.ts). Only their outcome is emulated; there are no work
// queues, so there is no delay either.

const FOREGROUND = 'foregroundDeletion';

type Owner = NonNullable<KubeObject['metadata']['ownerReferences']>[number];

function ownerOf(store: KubeStore, ref: Owner, namespace: string): { r: ResourceInfo; object: KubeObject } | undefined {
  const r = store.resources.all().find((x) => groupVersion(x) === ref.apiVersion && x.kind === ref.kind);
  if (!r) return undefined;
  const object = store.objects.get(groupResource(r), r.namespaced ? namespace : '', ref.name);
  return object && object.metadata.uid === ref.uid ? { r, object } : undefined;
}

function resourceOf(store: KubeStore, key: string): ResourceInfo | undefined {
  return store.resources.byGroupResource(key);
}

function deleteDependents(store: KubeStore, owner: KubeObject): void {
  for (const { groupResource: key, object } of store.objects.dependentsOf(owner.metadata.uid ?? '')) {
    const r = resourceOf(store, key);
    if (!r) continue;
    const others = (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.metadata.uid);
    const live = others.filter((ref) => ownerOf(store, ref, object.metadata.namespace ?? ''));
    // attemptToDeleteItem: a dependent with a remaining live owner only loses its dangling references.
    if (live.length > 0)
      store.update(r, {
        ...object,
        metadata: { ...object.metadata, ownerReferences: live },
      });
    else if (!object.metadata.deletionTimestamp) store.delete(r, object.metadata.name ?? '', object.metadata.namespace);
  }
}

function orphanDependents(store: KubeStore, owner: KubeObject): void {
  for (const { groupResource: key, object } of store.objects.dependentsOf(owner.metadata.uid ?? '')) {
    const r = resourceOf(store, key);
    const refs = (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.metadata.uid);
    const metadata: KubeObject['metadata'] = {
      ...object.metadata,
      ownerReferences: refs,
    };
    if (refs.length === 0) delete metadata.ownerReferences;
    if (r) store.update(r, { ...object, metadata });
  }
}

// A Foreground owner goes once no dependent with blockOwnerDeletion remains.
function finishForeground(store: KubeStore, r: ResourceInfo, owner: KubeObject): void {
  if (!owner.metadata.deletionTimestamp || !owner.metadata.finalizers?.includes(FOREGROUND)) return;
  const blocking = store.objects
    .dependentsOf(owner.metadata.uid ?? '')
    .filter(({ object }) =>
      object.metadata.ownerReferences?.some((ref) => ref.uid === owner.metadata.uid && ref.blockOwnerDeletion),
    );
  if (blocking.length > 0) return;
  const finalizers = owner.metadata.finalizers.filter((f) => f !== FOREGROUND);
  store.update(r, { ...owner, metadata: { ...owner.metadata, finalizers } });
}

function finishNamespace(store: KubeStore, namespace: string): void {
  const ns = store.objects.get('namespaces', '', namespace);
  if (!ns?.metadata.deletionTimestamp || (ns.metadata.finalizers ?? []).length > 0) return;
  const content = store.resources
    .all()
    .some((r) => r.namespaced && store.objects.count(groupResource(r), namespace) > 0);
  if (!content) store.removeNow(store.info('namespaces'), ns);
}

function finishCrd(store: KubeStore, crdName: string): void {
  const crds = store.info('customresourcedefinitions.apiextensions.k8s.io');
  const crd = store.objects.get(groupResource(crds), '', crdName);
  if (!crd?.metadata.deletionTimestamp || (crd.metadata.finalizers ?? []).length > 0) return;
  const [plural = '', ...group] = crdName.split('.');
  const key = `${plural}.${group.join('.')}`;
  if (store.objects.count(key) > 0) return;
  store.removeNow(crds, crd);
  store.objects.dropResource(key);
}

function deleteAll(store: KubeStore, r: ResourceInfo, namespace?: string): void {
  for (const object of store.list(r, namespace)) {
    if (!object.metadata.deletionTimestamp) store.delete(r, object.metadata.name ?? '', object.metadata.namespace);
  }
}

// The clusterrole-aggregation controller (rbac-aggregation.ts): any ClusterRole change may change what an aggregated
// role selects, so every aggregated role is synced, as its `enqueue` queues them all. A write that changes nothing
// comes back here and stops.
function aggregateClusterRoles(store: KubeStore, r: ResourceInfo): void {
  const roles = [...store.objects.list(groupResource(r))] as unknown as Role[];
  for (const role of roles) {
    const rules = aggregatedRules(role, roles);
    if (rules === undefined || sameRules(role.rules, rules)) continue;
    const current = store.objects.get(groupResource(r), '', role.metadata.name ?? '');
    if (current) store.update(r, { ...current, rules }, { manager: 'clusterrole-aggregation-controller' });
  }
}

export function sandboxControllers(): StoreControllers {
  const pdbNamespaces = new Set<string>();

  // The disruption controller's status, recomputed once per burst of pod/PDB writes in a namespace. A microtask
  // runs before the server reads the next request, so clients never see a stale status.
  function syncPdbs(store: KubeStore, namespace: string): void {
    if (pdbNamespaces.size === 0) queueMicrotask(() => flushPdbs(store));
    pdbNamespaces.add(namespace);
  }

  function flushPdbs(store: KubeStore): void {
    const namespaces = [...pdbNamespaces];
    pdbNamespaces.clear();
    const pdbs = store.info('poddisruptionbudgets.policy');
    for (const namespace of namespaces) {
      const budgets = store.list(pdbs, namespace);
      if (budgets.length === 0) continue;
      for (const pdb of budgets) {
        const status = pdbStatusOf(pdb, store.pdbPods.count(pdb), store.now().toISOString());
        if (JSON.stringify(status) !== JSON.stringify(pdb.status)) {
          store.update(pdbs, { ...pdb, status }, { subresource: 'status', manager: 'kube-controller-manager' });
        }
      }
    }
  }

  return {
    deleting(store: KubeStore, r: ResourceInfo, object: KubeObject, policy: PropagationPolicy) {
      if (policy === 'Orphan') orphanDependents(store, object);
      if (!object.metadata.deletionTimestamp) return; // removed right away: changed() cascades
      if (policy === 'Foreground') {
        deleteDependents(store, object);
        const current = store.objects.get(
          groupResource(r),
          object.metadata.namespace ?? '',
          object.metadata.name ?? '',
        );
        if (current) finishForeground(store, r, store.asVersion(r, current));
      }
      if (r.resource === 'namespaces' && !r.group) {
        const name = object.metadata.name ?? '';
        for (const content of store.resources.all().filter((x) => x.namespaced)) deleteAll(store, content, name);
        finishNamespace(store, name);
      }
      if (r.resource === 'customresourcedefinitions') {
        const served = store.resources.byGroupResource(object.metadata.name ?? '');
        if (served) deleteAll(store, served);
        finishCrd(store, object.metadata.name ?? '');
      }
    },

    changed(store: KubeStore, r: ResourceInfo, object: KubeObject, removed: boolean) {
      const namespace = object.metadata.namespace ?? '';
      if ((r.resource === 'pods' && !r.group) || r.resource === 'poddisruptionbudgets') syncPdbs(store, namespace);
      if (r.resource === 'clusterroles' && r.group === 'rbac.authorization.k8s.io') aggregateClusterRoles(store, r);
      if (!removed) return;
      deleteDependents(store, object);
      for (const ref of object.metadata.ownerReferences ?? []) {
        const owner = ownerOf(store, ref, namespace);
        if (owner) finishForeground(store, owner.r, store.asVersion(owner.r, owner.object));
      }
      if (r.namespaced) finishNamespace(store, namespace);
      if (r.crd) finishCrd(store, r.crd.name);
    },
  };
}
