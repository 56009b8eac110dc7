// The shapes the sandbox's API server passes around. Objects stay plain JSON: the server stores what clients send.

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** One served resource: what discovery lists and what the REST handlers route on. */
export interface ResourceInfo {
  group: string; // '' for core
  version: string;
  resource: string; // plural, e.g. 'nodeclaims'
  kind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  subresources: { status: boolean };
  /** Set for custom resources: the CRD version's schema and printer columns drive validation and tables. */
  crd?: { name: string; additionalPrinterColumns?: PrinterColumn[] };
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** List semantics for server-side apply, from `x-kubernetes-list-type`/`-list-map-keys` (CRDs) or the built-in types. */
export type ListSemantics = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: string[] };

/** A metav1.Status cause, as kube-apiserver reports field errors. */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** Thrown inside the server to answer with a metav1.Status. */
export class ApiStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[]; retryAfterSeconds?: number },
    /** The Status's ListMeta: an expired continue token's successor. */
    readonly listMeta?: { continue?: string },
  ) {
    super(message);
  }
}
