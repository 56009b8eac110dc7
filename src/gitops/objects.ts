// The EC2NodeClasses and NodePools the files make, each with the place in the files that decides each field `pin`
// may change: a manifest's node, a strategic-merge patch's node, a JSON 6902 operation, a Helm values node. Pure.
import type { YamlPath } from './yaml-file.js';

/** A node in a document of a file. */
export interface Location {
  file: string;
  /** The document's index in the file (0 for the first; `---` separates them). */
  doc: number;
  path: YamlPath;
}

/**
 * Where a field's value comes from, which is what `pin` changes:
 * - `node`: the value is this node (a manifest, a strategic-merge patch, the `value` of a JSON 6902 operation, a
 *   Helm values file); a new value replaces it there.
 * - `op`: a JSON 6902 operation sets part of it (`/spec/amiSelectorTerms/0/alias`); the operation is rewritten to set
 *   the whole field.
 * - `absent`: nothing sets it; `keys` under the map at `map` is where it is written (amiFamily goes beside the
 *   terms wherever they are decided instead).
 * - `fixed`: it cannot be written where the terms are (`--values-path` naming a list has no place for amiFamily).
 */
export type Decider =
  | { kind: 'node'; at: Location }
  | { kind: 'op'; file: string; doc: number; op: number; field: readonly string[] }
  | { kind: 'absent'; map?: Location; keys?: readonly string[] }
  | { kind: 'fixed'; why: string };

/** The fields `pin` decides for, by the path of each in its object. */
export const FIELDS = {
  amiSelectorTerms: ['spec', 'amiSelectorTerms'],
  amiFamily: ['spec', 'amiFamily'],
  budgets: ['spec', 'disruption', 'budgets'],
} as const;
export type Field = keyof typeof FIELDS;

export type KarpenterKind = 'EC2NodeClass' | 'NodePool';

export interface BuiltObject {
  kind: KarpenterKind;
  apiVersion: string;
  /** The name it is applied with (after a kustomization's namePrefix/nameSuffix). */
  name: string;
  /** Every name it had on the way (patches may name it by any of them, as kustomize allows). */
  names: string[];
  /** The object as applied: the resource with every patch on it. */
  value: Record<string, unknown>;
  /** The manifest that creates it. */
  origin: Location;
  deciders: Partial<Record<Field, Decider>>;
}

/**
 * What is deployed together, and so what a NodePool's `nodeClassRef` can name: one kustomize build, the plain
 * manifests of one directory, or one Helm values path.
 */
export interface Unit {
  /** How it is named in output: the kustomization's directory, the manifests' directory, `values.yaml#a.b`. */
  label: string;
  kind: 'kustomize' | 'manifests' | 'helm-values';
  objects: BuiltObject[];
}

const KINDS: Record<string, KarpenterKind> = {
  'karpenter.k8s.aws/EC2NodeClass': 'EC2NodeClass',
  'karpenter.sh/NodePool': 'NodePool',
};

/** An EC2NodeClass or NodePool of any Karpenter API version (v1, v1beta1), else undefined. */
export function karpenterKind(value: unknown): KarpenterKind | undefined {
  if (value == null || typeof value !== 'object') return undefined;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  return KINDS[`${apiVersion.split('/')[0]}/${kind}`];
}

/** The value at a path of a plain object (a list indexed by the number a step spells). */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const step of path) {
    if (v == null || typeof v !== 'object') return undefined;
    if (Array.isArray(v) && !/^\d+$/.test(step)) return undefined;
    v = (v as Record<string, unknown>)[step];
  }
  return v;
}

/** The fields of a manifest, each decided where the manifest has it, else absent (written in the map above it). */
export function manifestDeciders(kind: KarpenterKind, file: string, doc: number, value: unknown): Partial<Record<Field, Decider>> {
  const fields: Field[] = kind === 'EC2NodeClass' ? ['amiSelectorTerms', 'amiFamily'] : ['budgets'];
  const out: Partial<Record<Field, Decider>> = {};
  for (const f of fields) {
    const path = FIELDS[f];
    out[f] =
      valueAt(value, path) !== undefined
        ? { kind: 'node', at: { file, doc, path } }
        : { kind: 'absent', ...deepestMap(value, file, doc, path) };
  }
  return out;
}

/** The deepest map on the way to `path` that exists, and the keys still to create under it. */
function deepestMap(value: unknown, file: string, doc: number, path: readonly string[]): { map: Location; keys: string[] } {
  let i = path.length - 1;
  while (i > 0 && valueAt(value, path.slice(0, i)) === undefined) i--;
  return { map: { file, doc, path: path.slice(0, i) }, keys: path.slice(i) };
}
