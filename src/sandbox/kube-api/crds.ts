// The Karpenter CustomResourceDefinitions the sandbox serves and `render` validates against, read from the vendored
// copies (vendor/karpenter/crds/, see its README.md) at the package root (package-root.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { packagePath } from '../../package-root.js';
import type { ObjectMeta, PrinterColumn } from './types.js';

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps that structural schemas allow. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: JSONSchemaProps[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  schema?: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: Record<string, string> };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: ObjectMeta;
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Cluster' | 'Namespaced';
    versions: CustomResourceDefinitionVersion[];
    /** Kept as written: the server converts between versions only by rewriting apiVersion (README, Not emulated). */
    conversion?: { strategy: 'None' | 'Webhook'; webhook?: Record<string, unknown> };
  };
}

/** The three Karpenter CRDs (EC2NodeClass, NodeClaim, NodePool) as shipped by one Karpenter release line. */
export function loadKarpenterCrds(apiVersion: 'v1' | 'v1beta1'): CustomResourceDefinition[] {
  const dir = packagePath('vendor', 'karpenter', 'crds', apiVersion);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => load(readFileSync(join(dir, file), 'utf8')) as CustomResourceDefinition);
}
