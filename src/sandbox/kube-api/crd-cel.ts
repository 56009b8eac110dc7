// x-kubernetes-validations: CEL rules evaluated as apiextensions-apiserver `pkg/apiserver/schema/cel/validation.go`
// does. Each rule runs at the schema node that declares it with `self` bound to that node's (non-null) value, after
// the whole object passed OpenAPI validation; transition rules (those naming `oldSelf`) run only where the update
// has a correlated old value: same property, same map key, or same keys in a `list-type: map` list.
import { Environment, Optional, type ASTNode, type ParseResult } from '@marcbachmann/cel-js';
import type { JSONSchemaProps, ValidationRule } from './crds.js';
import {
  additionalPropertiesSchema,
  childPath,
  compiledPattern,
  fieldErrors,
  indexPath,
  isObject,
  jsonEqual,
  keyPath,
  propertySchema,
  type FieldCause,
} from './crd-schema.js';

// cel-js implements CEL with cel-go's strings extension (split, lowerAscii, ...), but not the libraries kube-apiserver
// adds on top (k8s.io/apiserver/pkg/cel/library). Of those, the Karpenter CRDs use only the regex library's `find`
// (e.g. `self.find("^([^/]+)").endsWith("karpenter.sh")`), so that is the one defined here. Any other missing
// function fails `compileCelRules` loudly instead of letting a rule pass unchecked.
// Patterns are RE2 upstream and JavaScript regexes here; the ones in the Karpenter CRDs mean the same in both.
const find = (value: string, pattern: string): string => compiledPattern(pattern).exec(value)?.[0] ?? '';
const kubernetesLibrary = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
  .registerVariable('self', 'dyn')
  .registerFunction('string.find(string): string', find);
// `optionalOldSelf` rules see oldSelf as an optional (optional.none() on create), the others as the value itself.
const environments = {
  plain: kubernetesLibrary.clone().registerVariable('oldSelf', 'dyn'),
  optional: kubernetesLibrary.clone().registerVariable('oldSelf', 'optional<dyn>'),
};

interface CompiledRule {
  source: ValidationRule;
  program: ParseResult;
  messageExpression?: ParseResult;
  usesOldSelf: boolean;
  /** `fieldPath` as a field.Path string relative to the rule's node. */
  fieldPath?: string;
}

/** Parallels the schema, like upstream's cel.Validator: only nodes with rules at or below them. */
export interface CelNode {
  schema: JSONSchemaProps;
  rules: CompiledRule[];
  properties: Map<string, CelNode>;
  additionalProperties?: CelNode;
  items?: CelNode;
}

function compileExpression(expression: string, rule: ValidationRule): ParseResult {
  const program = environments[rule.optionalOldSelf ? 'optional' : 'plain'].parse(expression);
  const check = program.check();
  if (!check.valid) {
    const why = check.error?.message ?? 'type check failed';
    throw new Error(`x-kubernetes-validations rule ${JSON.stringify(expression)} does not compile: ${why}`);
  }
  return program;
}

function mentionsOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsOldSelf);
  if (typeof node !== 'object' || node == null || !('op' in node)) return false;
  const ast = node as ASTNode;
  return ast.op === 'id' ? ast.args === 'oldSelf' : mentionsOldSelf(ast.args);
}

/** Compiles every rule at and below `s` once; returns undefined when the subtree has none. */
export function compileCelRules(s: JSONSchemaProps): CelNode | undefined {
  const rules = (s['x-kubernetes-validations'] ?? []).map((source): CompiledRule => {
    const program = compileExpression(source.rule, source);
    return {
      source,
      program,
      messageExpression: source.messageExpression ? compileExpression(source.messageExpression, source) : undefined,
      usesOldSelf: mentionsOldSelf(program.ast),
      fieldPath: source.fieldPath ? normalizedFieldPath(s, source.fieldPath) : undefined,
    };
  });
  const properties = new Map<string, CelNode>();
  for (const [k, property] of Object.entries(s.properties ?? {})) {
    const node = compileCelRules(property);
    if (node) properties.set(k, node);
  }
  const additional = additionalPropertiesSchema(s);
  const additionalProperties = additional && compileCelRules(additional);
  const items = s.items && compileCelRules(s.items);
  if (!rules.length && !properties.size && !additionalProperties && !items) return undefined;
  return { schema: s, rules, properties, additionalProperties, items };
}

/** A rule's `fieldPath` (`.a.b`, `['a.b']`, map keys) as upstream's `ValidFieldPath` renders it. */
function normalizedFieldPath(s: JSONSchemaProps, fieldPath: string): string {
  let path = '';
  let node: JSONSchemaProps | undefined = s;
  for (const [, dotted, quoted] of fieldPath.matchAll(/\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/g)) {
    const name = (dotted ?? quoted ?? '').replace(/\\(.)/g, '$1');
    if (node?.properties) [path, node] = [childPath(path, name), propertySchema(node, name)];
    else if (node && additionalPropertiesSchema(node))
      [path, node] = [keyPath(path, name), additionalPropertiesSchema(node)];
    else node = undefined;
    if (!node) {
      throw new Error(
        `x-kubernetes-validations fieldPath ${JSON.stringify(fieldPath)} does not refer to a valid field`,
      );
    }
  }
  return path;
}

/**
 * Decoded JSON as the CEL value upstream's `UnstructuredToVal` builds: integers are CEL ints (BigInt in cel-js),
 * `type: number` stays a double. `cache` holds conversions for one validation, so nested rules reuse them.
 */
function celValue(s: JSONSchemaProps | undefined, value: unknown, cache: Map<object, unknown>): unknown {
  if (typeof value === 'number') return s?.type !== 'number' && Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value !== 'object' || value == null) return value;
  const cached = cache.get(value);
  if (cached !== undefined) return cached;
  let converted: unknown;
  if (Array.isArray(value)) converted = value.map((item) => celValue(s?.items, item, cache));
  else {
    const entries = Object.entries(value as Record<string, unknown>);
    converted = Object.fromEntries(
      entries.map(([k, v]) => [k, celValue(s && (propertySchema(s, k) ?? additionalPropertiesSchema(s)), v, cache)]),
    );
  }
  cache.set(value, converted);
  return converted;
}

const ruleErrorString = (rule: ValidationRule) => (rule.message ? rule.message.trim() : rule.rule.trim());
const ruleMessageOrDefault = (rule: ValidationRule) =>
  rule.message ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;

function evaluationErrorDetail(err: unknown, rule: ValidationRule): string {
  const summary = ((err as { summary?: string }).summary ?? String(err)).replace(/^No such key/, 'no such key');
  return summary.startsWith('no such overload')
    ? `'${summary}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
    : `${summary} evaluating rule: ${ruleErrorString(rule)}`;
}

/** A messageExpression's text, or undefined when it fails or is unusable (upstream then falls back to `message`). */
function evaluatedMessage(program: ParseResult, context: Record<string, unknown>): string | undefined {
  try {
    const message: unknown = program(context);
    const trimmed = typeof message === 'string' ? message.trim() : '';
    return trimmed !== '' && !trimmed.includes('\n') ? trimmed : undefined;
  } catch {
    return undefined;
  }
}

function ruleFailure(rule: CompiledRule, path: string, type: string, context: Record<string, unknown>): FieldCause {
  const field = rule.fieldPath ? childPath(path, rule.fieldPath) : path;
  const detail =
    (rule.messageExpression && evaluatedMessage(rule.messageExpression, context)) ?? ruleMessageOrDefault(rule.source);
  switch (rule.source.reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(field, detail);
    case 'FieldValueRequired':
      return fieldErrors.required(field, detail);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(field, type);
    default:
      return fieldErrors.invalid(field, type, detail);
  }
}

function nodeRuleErrors(
  node: CelNode,
  value: unknown,
  old: unknown,
  path: string,
  cache: Map<object, unknown>,
  out: FieldCause[],
) {
  if (!node.rules.length) return;
  const type = node.schema.type ?? '';
  const self = celValue(node.schema, value, cache);
  const oldSelf = old == null ? undefined : celValue(node.schema, old, cache);
  for (const rule of node.rules) {
    const optional = rule.source.optionalOldSelf === true;
    if (rule.usesOldSelf && oldSelf === undefined && !optional) continue;
    const context = {
      self,
      oldSelf: optional ? (oldSelf === undefined ? Optional.none() : Optional.of(oldSelf)) : oldSelf,
    };
    let result: unknown;
    try {
      result = rule.program(context);
    } catch (err) {
      out.push(fieldErrors.invalid(path, type, evaluationErrorDetail(err, rule.source)));
      continue;
    }
    if (result !== true) out.push(ruleFailure(rule, path, type, context));
  }
}

/** The old item a `list-type: map` item correlates with (same key values); other lists do not correlate. */
function correlatedItem(s: JSONSchemaProps, item: unknown, old: unknown): unknown {
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] !== 'map' || !keys || !Array.isArray(old) || !isObject(item)) return undefined;
  return old.find((candidate) => isObject(candidate) && keys.every((k) => jsonEqual(candidate[k], item[k])));
}

/** Appends the failures of every rule at and below `node` for `value` (and `old` on update) at field path `path`. */
export function celErrors(
  node: CelNode | undefined,
  value: unknown,
  old: unknown,
  path: string,
  out: FieldCause[],
  cache = new Map<object, unknown>(),
): void {
  if (!node || value == null) return;
  nodeRuleErrors(node, value, old, path, cache, out);
  if (Array.isArray(value)) {
    const items = node.items;
    value.forEach((item, i) => {
      if (items) celErrors(items, item, correlatedItem(node.schema, item, old), indexPath(path, i), out, cache);
    });
  } else if (isObject(value)) {
    const oldObject = isObject(old) ? old : undefined;
    for (const [k, v] of Object.entries(value)) {
      const property = node.properties.get(k);
      if (property) celErrors(property, v, oldObject?.[k], childPath(path, k), out, cache);
      else if (node.additionalProperties && !propertySchema(node.schema, k)) {
        celErrors(node.additionalProperties, v, oldObject?.[k], keyPath(path, k), out, cache);
      }
    }
  }
}
