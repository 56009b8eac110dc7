// Custom-resource admission as kube-apiserver's apiextensions-apiserver does it for one CRD version:
//   1. decode: prune unknown fields (`schema/pruning/algorithm.go`), drop nulls the schema does not allow
//      (`schema/defaulting/prunenulls.go`), apply `default`s (`schema/defaulting/algorithm.go`);
//   2. validate (`registry/customresource/strategy.go` Validate/ValidateUpdate): OpenAPI schema, list-type
//      set/map invariants, then the x-kubernetes-validations CEL rules, which are skipped with one notice when an
//      OpenAPI error is "blocking" (`hasBlockingErr`).
// Not emulated: metadata validation (name format, ...), validation ratcheting of unchanged fields on update, CEL
// cost budgets, and `anyOf` beyond the `x-kubernetes-int-or-string` shape the Karpenter CRDs use.
import type { CustomResourceDefinition, JSONSchemaProps } from './crds.js';
import { celErrors, compileCelRules, type CelNode } from './crd-cel.js';
import {
  additionalPropertiesSchema,
  fieldErrors,
  isObject,
  listTypeErrors,
  propertySchema,
  schemaErrors,
  type FieldCause,
} from './crd-schema.js';

export type { FieldCause } from './crd-schema.js';

export interface CrdValidator {
  /**
   * Applies defaults, prunes unknown fields (respecting x-kubernetes-preserve-unknown-fields and embedded resources),
   * then validates schema + x-kubernetes-validations (with oldSelf transition rules when `old` is given).
   * metadata/apiVersion/kind are kept. A `status` subresource write validates the whole object too; the caller
   * persists only its status. `object` is not modified: the returned object is a pruned, defaulted copy.
   */
  validate(
    version: string,
    object: Record<string, unknown>,
    old?: Record<string, unknown>,
  ): { object: Record<string, unknown>; causes: FieldCause[] };
}

const SCHEMA_KEYWORDS = new Set(
  [
    'description title example externalDocs type format properties additionalProperties items required enum default',
    'nullable pattern minLength maxLength minimum maximum exclusiveMinimum exclusiveMaximum minItems maxItems',
    'minProperties maxProperties anyOf',
  ]
    .join(' ')
    .split(' '),
);
const CHECKED_FORMATS = new Set(['date-time', 'int32', 'int64', 'float', 'double']);

/** Refuses, at compile time, schema features this engine would otherwise silently not enforce. */
function assertSupported(s: JSONSchemaProps, path: string): void {
  const unsupported = Object.keys(s).find((key) => !SCHEMA_KEYWORDS.has(key) && !key.startsWith('x-kubernetes-'));
  if (unsupported) throw new Error(`${path}: schema keyword ${unsupported} is not supported`);
  if (s.format !== undefined && !CHECKED_FORMATS.has(s.format)) {
    throw new Error(`${path}: format ${s.format} is not supported`);
  }
  if (s.anyOf && !s['x-kubernetes-int-or-string']) {
    throw new Error(`${path}: anyOf is only supported for x-kubernetes-int-or-string`);
  }
  for (const [k, property] of Object.entries(s.properties ?? {})) assertSupported(property, `${path}.${k}`);
  const additional = additionalPropertiesSchema(s);
  if (additional) assertSupported(additional, `${path}.additionalProperties`);
  if (s.items) assertSupported(s.items, `${path}.items`);
}

/** The root of a resource or an x-kubernetes-embedded-resource: apiVersion, kind and metadata are kept as they are. */
const isResourceMeta = (key: string, value: unknown) =>
  ((key === 'apiVersion' || key === 'kind') && typeof value === 'string') || (key === 'metadata' && isObject(value));

/**
 * Prunes, drops disallowed nulls and applies defaults, in place, in one walk (the three upstream passes compose this
 * way). Fields without a schema (kept by x-kubernetes-preserve-unknown-fields) are left as they are.
 */
function decode(s: JSONSchemaProps | undefined, value: unknown, resourceRoot: boolean): void {
  if (!s) return;
  if (Array.isArray(value)) {
    const items = s.items;
    value.forEach((item, i) => {
      if (item == null && items?.default !== undefined && !items.nullable) value[i] = structuredClone(items.default);
      decode(items, value[i], items?.['x-kubernetes-embedded-resource'] === true);
    });
    return;
  }
  if (!isObject(value)) return;
  const preserveUnknown = s['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [k, v] of Object.entries(value)) {
    if (resourceRoot && isResourceMeta(k, v)) continue;
    const child = propertySchema(s, k) ?? additionalPropertiesSchema(s);
    // undefined is how in-process callers leave a field out; JSON has no such value.
    const dropped = child ? v == null && !child.nullable && child.default === undefined : !preserveUnknown;
    if (v === undefined || dropped) delete value[k];
  }
  for (const [k, property] of Object.entries(s.properties ?? {})) {
    const absent = !Object.hasOwn(value, k) || (value[k] == null && !property.nullable);
    if (property.default !== undefined && absent) value[k] = structuredClone(property.default);
  }
  for (const [k, v] of Object.entries(value)) {
    if (resourceRoot && isResourceMeta(k, v)) continue;
    const child = propertySchema(s, k) ?? additionalPropertiesSchema(s);
    if (child?.default !== undefined && v == null && !child.nullable) value[k] = structuredClone(child.default);
    decode(child, value[k], child?.['x-kubernetes-embedded-resource'] === true);
  }
}

const BLOCKING: ReadonlySet<FieldCause['reason']> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

interface CompiledVersion {
  schema: JSONSchemaProps;
  rules: CelNode | undefined;
}

function compileVersion(crd: CustomResourceDefinition, version: string, schema: JSONSchemaProps): CompiledVersion {
  const where = `CRD ${crd.metadata.name} version ${version}`;
  assertSupported(schema, where);
  try {
    return { schema, rules: compileCelRules(schema) };
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
  }
}

const validators = new WeakMap<CustomResourceDefinition, CrdValidator>();

/** Compiles every served version's schema and CEL rules once; later calls with the same CRD object reuse them. */
export function crdValidator(crd: CustomResourceDefinition): CrdValidator {
  const cached = validators.get(crd);
  if (cached) return cached;
  const versions = new Map<string, CompiledVersion>();
  for (const v of crd.spec.versions) {
    if (v.schema) versions.set(v.name, compileVersion(crd, v.name, v.schema.openAPIV3Schema));
  }
  const validator: CrdValidator = {
    validate(version, input, old) {
      const compiled = versions.get(version);
      if (!compiled) throw new Error(`CRD ${crd.metadata.name} has no version ${version} with a schema`);
      const object = structuredClone(input);
      decode(compiled.schema, object, true);
      // The old object comes from storage, which kube-apiserver defaults on read.
      const stored = old && structuredClone(old);
      if (stored) decode(compiled.schema, stored, true);
      const causes: FieldCause[] = [];
      schemaErrors(compiled.schema, object, '', causes);
      // On update, list-type errors are reported only if the old object had none (ValidateUpdate's ratcheting).
      const oldListErrors: FieldCause[] = [];
      if (stored) listTypeErrors(compiled.schema, stored, '', oldListErrors);
      if (!oldListErrors.length) listTypeErrors(compiled.schema, object, '', causes);
      if (compiled.rules && causes.some((c) => BLOCKING.has(c.reason))) {
        const notice =
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
        causes.push(fieldErrors.invalid('', null, notice));
      } else {
        celErrors(compiled.rules, object, stored, '', causes);
      }
      return { object, causes };
    },
  };
  validators.set(crd, validator);
  return validator;
}

/**
 * The Status.message of a 422 Invalid: apimachinery `errors.NewInvalid` prints `<Kind>.<group> "<name>" is invalid: `
 * and the field.ErrorList aggregate, which drops repeated messages and brackets the list only when several remain.
 */
export function invalidMessage(kind: string, group: string, name: string, causes: FieldCause[]): string {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const errors = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const prefix = `${qualifiedKind} ${JSON.stringify(name)} is invalid`;
  if (errors.length === 0) return prefix;
  return `${prefix}: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;
}
