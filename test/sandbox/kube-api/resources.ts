// ResourceInfo factories and the vendored CRDs' schemas and printer columns, shared by the kube-api unit tests.
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import type { PrinterColumn, ResourceInfo } from '../../../src/sandbox/kube-api/types.js';

const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export function coreResource(
  resource: string,
  kind: string,
  namespaced: boolean,
  group = '',
  version = 'v1',
): ResourceInfo {
  return {
    group,
    version,
    resource,
    kind,
    singular: kind.toLowerCase(),
    namespaced,
    verbs,
    subresources: { status: kind !== 'Event' },
  };
}

export const pods = coreResource('pods', 'Pod', true);
export const nodes = coreResource('nodes', 'Node', false);
export const namespaces = coreResource('namespaces', 'Namespace', false);
export const events = coreResource('events', 'Event', true);
export const podDisruptionBudgets = coreResource('poddisruptionbudgets', 'PodDisruptionBudget', true, 'policy');

interface CrdVersion {
  name: string;
  schema: { openAPIV3Schema: Record<string, unknown> };
  additionalPrinterColumns?: PrinterColumn[];
}

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { kind: string; plural: string; singular: string }; versions: CrdVersion[] };
}

/** The v1 version of a vendored Karpenter CRD: its ResourceInfo and its openAPIV3Schema. */
export function karpenterCrd(file: string): { resource: ResourceInfo; schema: Record<string, unknown> } {
  const crd = load(readFileSync(new URL(`../../../vendor/karpenter/crds/v1/${file}`, import.meta.url), 'utf8')) as Crd;
  const version = crd.spec.versions.find((v) => v.name === 'v1');
  if (!version) throw new Error(`${file} has no v1 version`);
  const { group, names } = crd.spec;
  return {
    resource: {
      group,
      version: 'v1',
      resource: names.plural,
      kind: names.kind,
      singular: names.singular,
      namespaced: false,
      verbs,
      subresources: { status: true },
      crd: { name: crd.metadata.name, additionalPrinterColumns: version.additionalPrinterColumns },
    },
    schema: version.schema.openAPIV3Schema,
  };
}

export function fixture(name: string): unknown {
  return load(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'));
}
