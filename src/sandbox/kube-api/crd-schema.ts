// OpenAPI v3 validation of a custom resource against its structural schema, reporting field errors the way
// kube-apiserver does: kube-openapi `pkg/validation/validate` finds them (object_validator.go, slice_validator.go,
// validator.go; messages from `pkg/validation/errors/schema.go`) and apiextensions-apiserver
// `pkg/apiserver/validation/validation.go` (`kubeOpenAPIResultToFieldErrors`) turns them into `field.Error`s, whose
// text comes from apimachinery `pkg/util/validation/field/errors.go` (`ErrorBody`).
import type { JSONSchemaProps } from './crds.js';

export interface FieldCause {
  reason:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueForbidden'
    | 'FieldValueTypeInvalid'
    | 'FieldValueDuplicate';
  message: string;
  field: string;
}

/** The OpenAPI type name kube-openapi infers from a decoded JSON value (`schemaInfoForType`). */
export function jsonType(value: unknown): string {
  if (value == null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value != null && !Array.isArray(value);

export function propertySchema(s: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  return s.properties !== undefined && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
}

export const additionalPropertiesSchema = (s: JSONSchemaProps): JSONSchemaProps | undefined =>
  typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;

/** field.Path rendering: `a.b`, `a[0]`, `a[key]`; the root path prints as `<nil>`. */
export const childPath = (parent: string, name: string) => (parent === '' ? name : `${parent}.${name}`);
export const keyPath = (parent: string, key: string) => `${parent}[${key}]`;
export const indexPath = (parent: string, index: number) => `${parent}[${index}]`;
export const fieldString = (path: string) => (path === '' ? '<nil>' : path);

/** Go's `%v`/`%q`/`%#v` for the decoded JSON values a field.Error carries. */
function goValue(value: unknown, nested = false): string {
  if (value == null) return nested ? 'interface {}(nil)' : '"null"';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value !== 'object') return JSON.stringify(typeof value); // not a JSON value
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goValue(v, true)).join(', ')}}`;
  const entries = Object.keys(value).sort();
  const record = value as Record<string, unknown>;
  return `map[string]interface {}{${entries.map((k) => `${JSON.stringify(k)}:${goValue(record[k], true)}`).join(', ')}}`;
}

const withDetail = (body: string, detail: string) => (detail === '' ? body : `${body}: ${detail}`);
const cause = (reason: FieldCause['reason'], path: string, message: string): FieldCause => ({
  reason,
  message,
  field: fieldString(path),
});

export const fieldErrors = {
  invalid: (path: string, value: unknown, detail: string) =>
    cause('FieldValueInvalid', path, withDetail(`Invalid value: ${goValue(value)}`, detail)),
  typeInvalid: (path: string, value: unknown, detail: string) =>
    cause('FieldValueTypeInvalid', path, withDetail(`Invalid value: ${goValue(value)}`, detail)),
  required: (path: string, detail: string) => cause('FieldValueRequired', path, withDetail('Required value', detail)),
  forbidden: (path: string, detail: string) => cause('FieldValueForbidden', path, withDetail('Forbidden', detail)),
  duplicate: (path: string, value: unknown) => cause('FieldValueDuplicate', path, `Duplicate value: ${goValue(value)}`),
  notSupported: (path: string, value: unknown, supported: string[]) =>
    cause(
      'FieldValueNotSupported',
      path,
      withDetail(
        `Unsupported value: ${goValue(value)}`,
        supported.length ? `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` : '',
      ),
    ),
  // TooLongMaxLength and TooMany: the too-long value itself is left out, the count of items is not.
  tooLong: (path: string, max: number) => cause('FieldValueTooLong', path, `Too long: may not be longer than ${max}`),
  tooMany: (path: string, actual: number, max: number) =>
    cause('FieldValueTooMany', path, `Too many: ${actual}: must have at most ${max} items`),
};

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

const patterns = new Map<string, RegExp>();
/** `pattern`s and CEL regexes, compiled once per process. */
export function compiledPattern(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (!re) patterns.set(pattern, (re = new RegExp(pattern)));
  return re;
}

// go-openapi strfmt `IsDateTime`: a date, a "t" (any case), then hh:mm:ss[.frac](z|±hh:mm).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[tT]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([zZ]|[+-]\d{2}:\d{2})$/;
function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Go's utf8.RuneCountInString: code points, not UTF-16 units (a low surrogate does not start a rune). */
function runeCount(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) count++;
  }
  return count;
}

/** The declared type as kube-openapi sees it: `x-kubernetes-int-or-string` becomes the type list [integer, string]. */
const declaredType = (s: JSONSchemaProps) => (s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type);

function typeMatches(declared: string, actual: string): boolean {
  return declared.split(',').some((t) => t === actual || (t === 'number' && actual === 'integer'));
}

/**
 * Appends the OpenAPI errors of `value` at `path` (kube-openapi's dotted name, also the cause's field) in the order
 * kube-openapi's SchemaValidator runs its validators: type, string, format, number, slice, enum, object.
 */
export function schemaErrors(s: JSONSchemaProps, value: unknown, path: string, out: FieldCause[]): void {
  const declared = declaredType(s);
  const actual = jsonType(value);
  const name = `${path} in body`;
  if (declared !== undefined && !(actual === 'null' ? s.nullable : typeMatches(declared, actual))) {
    out.push(fieldErrors.typeInvalid(path, actual, `${name} must be of type ${declared}: "${actual}"`));
  }
  if (typeof value === 'string') {
    const length = s.maxLength !== undefined || s.minLength !== undefined ? runeCount(value) : 0;
    if (s.maxLength !== undefined && length > s.maxLength) out.push(fieldErrors.tooLong(path, s.maxLength));
    if (s.minLength !== undefined && length < s.minLength) {
      out.push(fieldErrors.invalid(path, value, `${name} should be at least ${s.minLength} chars long`));
    }
    if (s.pattern !== undefined && !compiledPattern(s.pattern).test(value)) {
      out.push(fieldErrors.invalid(path, value, `${name} should match '${s.pattern}'`));
    }
    if (s.format === 'date-time' && !isDateTime(value)) {
      out.push(fieldErrors.typeInvalid(path, value, `${name} must be of type date-time: ${JSON.stringify(value)}`));
    }
  }
  if (typeof value === 'number') {
    if (s.maximum !== undefined && (s.exclusiveMaximum ? value >= s.maximum : value > s.maximum)) {
      const bound = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      out.push(fieldErrors.invalid(path, value, `${name} should be ${bound} ${s.maximum}`));
    }
    if (s.minimum !== undefined && (s.exclusiveMinimum ? value <= s.minimum : value < s.minimum)) {
      const bound = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      out.push(fieldErrors.invalid(path, value, `${name} should be ${bound} ${s.minimum}`));
    }
  }
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => schemaErrors(s.items!, item, indexPath(path, i), out));
    if (s.minItems !== undefined && value.length < s.minItems) {
      out.push(fieldErrors.invalid(path, value.length, `${name} should have at least ${s.minItems} items`));
    }
    if (s.maxItems !== undefined && value.length > s.maxItems)
      out.push(fieldErrors.tooMany(path, value.length, s.maxItems));
  }
  if (s.enum && !s.enum.some((allowed) => jsonEqual(allowed, value))) {
    const supported = s.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    out.push(fieldErrors.notSupported(path, value, supported));
  }
  if (isObject(value)) objectErrors(s, value, path, out);
}

function objectErrors(s: JSONSchemaProps, value: Record<string, unknown>, path: string, out: FieldCause[]): void {
  const keys = Object.keys(value);
  // kube-openapi's objectValidator stops at a property-count error, before looking at any property.
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    out.push(
      fieldErrors.invalid(path, keys.length, `${path} in body should have at least ${s.minProperties} properties`),
    );
    return;
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    out.push(fieldErrors.tooMany(path, keys.length, s.maxProperties));
    return;
  }
  const additional = additionalPropertiesSchema(s);
  if (additional) {
    for (const k of keys) if (!propertySchema(s, k)) schemaErrors(additional, value[k], childPath(path, k), out);
  }
  for (const k of keys) {
    const property = propertySchema(s, k);
    if (property) schemaErrors(property, value[k], childPath(path, k), out);
  }
  for (const k of s.required ?? [])
    if (!Object.hasOwn(value, k)) out.push(fieldErrors.required(childPath(path, k), ''));
}

/**
 * The `x-kubernetes-list-type: set|map` invariants: apiextensions-apiserver `pkg/apiserver/schema/listtype/validation.go`.
 * Unlike the OpenAPI errors, these paths are field.Paths (map entries as `[key]`).
 */
export function listTypeErrors(s: JSONSchemaProps | undefined, value: unknown, path: string, out: FieldCause[]): void {
  if (!s) return;
  if (Array.isArray(value)) {
    if (s['x-kubernetes-list-type'] === 'set') {
      value.forEach((item, i) => {
        if (value.slice(0, i).some((earlier) => jsonEqual(earlier, item)))
          out.push(fieldErrors.duplicate(indexPath(path, i), item));
      });
    } else if (s['x-kubernetes-list-type'] === 'map') {
      listMapErrors(s, value, path, out);
    }
    value.forEach((item, i) => listTypeErrors(s.items, item, indexPath(path, i), out));
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const property = propertySchema(s, k);
      if (property) listTypeErrors(property, v, childPath(path, k), out);
      else listTypeErrors(additionalPropertiesSchema(s), v, keyPath(path, k), out);
    }
  }
}

function listMapErrors(s: JSONSchemaProps, items: unknown[], path: string, out: FieldCause[]): void {
  const bad = items.findIndex((item) => item != null && !isObject(item));
  if (bad >= 0) {
    out.push(fieldErrors.invalid(indexPath(path, bad), items[bad], 'must be an object for an array of list-type map'));
    return;
  }
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const seen: Array<Record<string, unknown>> = [];
  items.forEach((item, i) => {
    // A missing key falls back to its default; required-ness is the OpenAPI validation's business.
    const entry = Object.fromEntries(
      keys.map((k) => [k, (item as Record<string, unknown> | null)?.[k] ?? propertySchema(s.items ?? {}, k)?.default]),
    );
    if (seen.some((earlier) => jsonEqual(earlier, entry))) out.push(fieldErrors.duplicate(indexPath(path, i), entry));
    else seen.push(entry);
  });
}
