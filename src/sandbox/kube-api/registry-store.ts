import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from './crds.js';
import { crdValidator } from './crd-validation.js';
import { configMapCauses } from './configmap.js';
import { listSemanticsFor, type ListSemanticsLookup } from './list-semantics.js';
import { metaTime, recordUpdate } from './managed-fields.js';
import { PdbPodCounts } from './pdb-index.js';
import { groupResource, groupVersion, type ResourceRegistry } from './resources.js';
import { alreadyExists, conflict, forbidden, invalid, modifiedConflict, notFound } from './status.js';
import type { ObjectStore } from './store.js';
import {
  cause,
  defaultsOnCreate,
  equalJson,
  holdsContent,
  isCrd,
  randomSuffix,
  scoped,
  specChanged,
  tracksGeneration,
  withoutVolatile,
} from './strategies.js';
import { ApiStatusError, type KubeObject, type ResourceInfo } from './types.js';

// Create, update and delete with kube-apiserver's object semantics, as the generic registry store
// (apiserver pkg/registry/generic/registry/store.go) and the kinds' strategies apply them: server-set metadata,
// resourceVersion preconditions, generation, the status subresource split, finalizers and deletionTimestamp.
// The REST handlers and in-process callers (the Karpenter simulator, scenarios) both write through here.
// Cascading deletion and the controllers the sandbox stands in for live in garbage-collector.ts.

export interface WriteOptions {
  dryRun?: boolean;
  /** Records the write in managedFields under this manager; omitted, managedFields are left as they are. */
  manager?: string;
  /** 'status' writes only status; the main resource of a kind with a status subresource ignores status. */
  subresource?: 'status';
  /** In-process writers only: write spec and status together, as no API request can. */
  wholeObject?: boolean;
  /** managedFields are already computed (server-side apply). */
  managedFieldsComputed?: boolean;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type ResourceRef = string | ResourceInfo;

/**
 * What a CRD's conversion webhook does to an object written through a version that is not the storage version, by
 * group-resource (`nodepools.karpenter.sh`): given the object as validated in the request's version, the object to
 * store. Everything else about conversion is not emulated (README): reads only rewrite apiVersion.
 */
export type StorageConversions = Record<string, (object: KubeObject, from: string, to: string) => KubeObject>;

/** Hooks garbage-collector.ts installs: run after every stored change and before a deletion completes. */
export interface StoreControllers {
  deleting(store: KubeStore, r: ResourceInfo, object: KubeObject, policy: PropagationPolicy): void;
  changed(store: KubeStore, r: ResourceInfo, object: KubeObject, removed: boolean): void;
}

export class KubeStore {
  controllers: StoreControllers | undefined;
  conversions: StorageConversions = {};
  private readonly semantics = new WeakMap<ResourceInfo, ListSemanticsLookup>();
  /** Each PDB's covered and healthy pods, kept from the change feed (pdb-index.ts). */
  readonly pdbPods: PdbPodCounts;

  constructor(
    readonly objects: ObjectStore,
    readonly resources: ResourceRegistry,
    readonly now: () => Date = () => new Date(),
  ) {
    this.pdbPods = new PdbPodCounts(objects);
  }

  info(ref: ResourceRef): ResourceInfo {
    if (typeof ref !== 'string') return ref;
    const info = this.resources.byGroupResource(ref);
    if (!info) throw new Error(`the sandbox serves no resource ${ref}`);
    return info;
  }

  get(ref: ResourceRef, name: string, namespace = ''): KubeObject | undefined {
    const r = this.info(ref);
    const stored = this.objects.get(groupResource(r), r.namespaced ? namespace : '', name);
    return stored && this.asVersion(r, stored);
  }

  list(ref: ResourceRef, namespace?: string): KubeObject[] {
    const r = this.info(ref);
    return [...this.objects.list(groupResource(r), r.namespaced ? namespace : undefined)].map((o) =>
      this.asVersion(r, o),
    );
  }

  /** The object as `r`'s version serves it: without conversion webhooks only apiVersion differs (strategy None). */
  asVersion(r: ResourceInfo, stored: KubeObject): KubeObject {
    const apiVersion = groupVersion(r);
    return stored.apiVersion === apiVersion ? stored : { ...stored, apiVersion };
  }

  listSemantics(r: ResourceInfo): ListSemanticsLookup {
    let lookup = this.semantics.get(r);
    if (!lookup) {
      const schema = this.resources.customResource(r)?.crd.spec.versions.find((v) => v.name === r.version)?.schema;
      lookup = listSemanticsFor(r, schema?.openAPIV3Schema as Record<string, unknown> | undefined);
      this.semantics.set(r, lookup);
    }
    return lookup;
  }

  create(ref: ResourceRef, input: KubeObject, options: WriteOptions = {}): KubeObject {
    const r = this.info(ref);
    const meta = { ...input.metadata };
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    const name = meta.name ?? '';
    if (!name) {
      throw invalid(r, '', [
        cause('FieldValueRequired', 'metadata.name', 'Required value: name or generateName is required'),
      ]);
    }
    const namespace = r.namespaced ? (meta.namespace ?? '') : '';
    if (r.namespaced) this.checkNamespaceOpen(r, name, namespace);
    else delete meta.namespace;
    if (this.objects.get(groupResource(r), namespace, name)) throw alreadyExists(r, name);
    const now = this.now();
    for (const field of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'resourceVersion'] as const)
      delete meta[field];
    Object.assign(meta, {
      uid: randomUUID(),
      creationTimestamp: metaTime(now.toISOString()),
    });
    if (tracksGeneration(r)) meta.generation = 1;
    else delete meta.generation;
    let object: KubeObject = {
      ...input,
      apiVersion: groupVersion(r),
      kind: r.kind,
      metadata: meta,
    };
    if (!options.wholeObject) object = defaultsOnCreate(r, object);
    object = this.validated(r, object, undefined);
    if (options.manager && !options.managedFieldsComputed) {
      object = recordUpdate({
        old: undefined,
        updated: object,
        manager: options.manager,
        now: now.toISOString(),
        resource: r,
        listSemantics: this.listSemantics(r),
      });
    }
    if (options.dryRun) return object;
    return this.store(r, object);
  }

  update(ref: ResourceRef, input: KubeObject, options: WriteOptions = {}): KubeObject {
    const r = this.info(ref);
    const name = input.metadata.name ?? '';
    const namespace = r.namespaced ? (input.metadata.namespace ?? '') : '';
    const stored = this.objects.get(groupResource(r), namespace, name);
    if (!stored) throw notFound(r, name);
    const old = this.asVersion(r, stored);
    const rv = input.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) throw modifiedConflict(r, name);
    if (input.metadata.uid && input.metadata.uid !== old.metadata.uid) {
      throw conflict(
        r,
        name,
        `Precondition failed: UID in precondition: ${input.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    let object = scoped(r, old, input, options);
    const newFinalizers = (object.metadata.finalizers ?? []).filter(
      (f) => !(old.metadata.finalizers ?? []).includes(f),
    );
    if (old.metadata.deletionTimestamp && newFinalizers.length > 0) {
      const found = `[]string{${newFinalizers.map((f) => JSON.stringify(f)).join(', ')}}`;
      const message = `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${found}`;
      throw invalid(r, name, [cause('FieldValueForbidden', 'metadata.finalizers', message)]);
    }
    object = this.validated(r, object, old);
    if (tracksGeneration(r) && specChanged(r, old, object))
      object.metadata.generation = (old.metadata.generation ?? 0) + 1;
    if (options.manager && !options.managedFieldsComputed) {
      object = recordUpdate({
        old,
        updated: object,
        manager: options.manager,
        now: this.now().toISOString(),
        resource: r,
        subresource: options.subresource,
        listSemantics: this.listSemantics(r),
      });
    }
    // The etcd3 store's GuaranteedUpdate writes nothing when the bytes are unchanged: no new resourceVersion, no event.
    if (equalJson(withoutVolatile(object), withoutVolatile(old))) return old;
    if (options.dryRun) return object;
    const finalized =
      object.metadata.deletionTimestamp && (object.metadata.finalizers ?? []).length === 0 && !holdsContent(r);
    return finalized ? this.removeNow(r, object) : this.store(r, object);
  }

  /** DELETE: removes the object now, or, while finalizers remain, marks it with deletionTimestamp. */
  delete(
    ref: ResourceRef,
    name: string,
    namespace = '',
    options: DeleteOptions = {},
  ): { object: KubeObject; removed: boolean } {
    const r = this.info(ref);
    const stored = this.objects.get(groupResource(r), r.namespaced ? namespace : '', name);
    if (!stored) throw notFound(r, name);
    const old = this.asVersion(r, stored);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid && uid !== old.metadata.uid) {
      throw conflict(
        r,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    if (resourceVersion && resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(
        r,
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    }
    const policy = options.propagationPolicy ?? 'Background';
    const finalizers = [...(old.metadata.finalizers ?? [])];
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    if (finalizers.length === 0 && !holdsContent(r)) {
      if (options.dryRun) return { object: old, removed: true };
      this.controllers?.deleting(this, r, old, policy);
      return { object: this.removeNow(r, old), removed: true };
    }
    if (old.metadata.deletionTimestamp && equalJson(finalizers, old.metadata.finalizers ?? []))
      return { object: old, removed: false };
    const metadata: KubeObject['metadata'] = {
      ...old.metadata,
      finalizers,
      deletionGracePeriodSeconds: 0,
    };
    metadata.deletionTimestamp ??= metaTime(this.now().toISOString());
    if (tracksGeneration(r) && !old.metadata.deletionTimestamp)
      metadata.generation = (old.metadata.generation ?? 0) + 1;
    if (finalizers.length === 0) delete metadata.finalizers;
    let marked: KubeObject = { ...old, metadata };
    if (r.resource === 'namespaces' && !r.group)
      marked = {
        ...marked,
        status: { ...(old.status as object), phase: 'Terminating' },
      };
    if (options.dryRun) return { object: marked, removed: false };
    const result = this.store(r, marked);
    this.controllers?.deleting(this, r, result, policy);
    return { object: result, removed: false };
  }

  /** Removes without any further checks: the last finalizer is gone, or a controller finished the deletion. */
  removeNow(r: ResourceInfo, object: KubeObject): KubeObject {
    const removed = this.objects.remove(groupResource(r), object.metadata.namespace ?? '', object.metadata.name ?? '');
    if (!removed) return object;
    if (isCrd(r)) this.resources.uninstall(removed as unknown as CustomResourceDefinition);
    this.controllers?.changed(this, r, removed, true);
    return this.asVersion(r, removed);
  }

  private store(r: ResourceInfo, object: KubeObject): KubeObject {
    const stored = this.objects.put(groupResource(r), {
      ...object,
      apiVersion: this.storageVersion(r),
    });
    if (isCrd(r)) this.resources.install(stored as unknown as CustomResourceDefinition);
    this.controllers?.changed(this, r, stored, false);
    return this.asVersion(r, stored);
  }

  private storageVersion(r: ResourceInfo): string {
    const custom = this.resources.customResource(r);
    return custom ? `${r.group}/${custom.storageVersion}` : groupVersion(r);
  }

  private checkNamespaceOpen(r: ResourceInfo, name: string, namespace: string): void {
    if (!namespace) throw new ApiStatusError(400, 'BadRequest', 'the server could not find the requested resource');
    const ns = this.objects.get('namespaces', '', namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(r, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  // Custom resources: pruning, defaulting, OpenAPI schema and CEL (crd-validation.ts), against the requested version.
  private validated(r: ResourceInfo, object: KubeObject, old: KubeObject | undefined): KubeObject {
    const custom = this.resources.customResource(r);
    if (!custom) {
      const causes = r.resource === 'configmaps' && !r.group ? configMapCauses(object) : [];
      if (causes.length > 0) throw invalid(r, object.metadata.name ?? '', causes);
      return object;
    }
    const { object: decoded, causes } = crdValidator(custom.crd).validate(r.version, object, old);
    if (causes.length > 0) throw invalid(r, object.metadata.name ?? '', causes);
    const convert = r.version !== custom.storageVersion ? this.conversions[groupResource(r)] : undefined;
    return convert ? convert(decoded as KubeObject, r.version, custom.storageVersion) : (decoded as KubeObject);
  }
}
