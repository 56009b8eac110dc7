import { ApiStatusError, type KubeObject } from './types.js';

// `labelSelector` and `fieldSelector` as apimachinery parses them (pkg/labels/selector.go, pkg/fields/selector.go)
// and as each registry's GetAttrs/field-label conversion exposes fields. Parse errors and unknown fields are
// 400 BadRequest, as the list handler's `ParseSelector`/`ConvertFieldLabel` failures are.

export type Matcher = (obj: KubeObject) => boolean;

interface LabelRequirement {
  key: string;
  op: 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
  values: string[];
}

// labels.Parse: a comma-separated list of requirements; commas inside `in (...)` belong to the value list.
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim());
}

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function badSelector(message: string): ApiStatusError {
  return new ApiStatusError(400, 'BadRequest', `unable to parse requirement: ${message}`);
}

function checkKey(key: string): string {
  if (!LABEL_KEY.test(key)) {
    throw badSelector(
      `<nil>: Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return key;
}

function checkValue(value: string): string {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    throw badSelector(
      `values[0][${value}]: Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return value;
}

function parseRequirement(term: string): LabelRequirement {
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (set) {
    const values = (set[3] ?? '').split(',').map((v) => checkValue(v.trim()));
    return {
      key: checkKey(set[1] ?? ''),
      op: set[2] as 'in' | 'notin',
      values,
    };
  }
  const binary = /^([^=!<>\s]+)\s*(==|=|!=|<|>)\s*(.*)$/.exec(term);
  if (binary) {
    const key = checkKey(binary[1] ?? '');
    const value = (binary[3] ?? '').trim();
    switch (binary[2]) {
      case '!=':
        return { key, op: 'notin', values: [checkValue(value)] };
      case '<':
      case '>':
        if (!/^-?\d+$/.test(value)) throw badSelector(`for 'Gt', 'Lt' operators, the value must be an integer`);
        return { key, op: binary[2] === '<' ? 'lt' : 'gt', values: [value] };
      default:
        return { key, op: 'in', values: [checkValue(value)] };
    }
  }
  if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim()), op: '!', values: [] };
  if (/^\S+$/.test(term)) return { key: checkKey(term), op: 'exists', values: [] };
  throw badSelector(`found '${term}', expected: identifier`);
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key] ?? '';
  switch (r.op) {
    case 'in':
      return has && r.values.includes(value);
    case 'notin':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value)) return false;
      const n = Number(value);
      const bound = Number(r.values[0]);
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

/** `labelSelector`; undefined when the selector is empty (everything matches). */
export function labelSelectorMatcher(text: string | null | undefined): Matcher | undefined {
  if (!text?.trim()) return undefined;
  const requirements = splitTerms(text).map(parseRequirement);
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return requirements.every((r) => requirementMatches(r, labels));
  };
}

// The fields each resource exposes to field selectors (pkg/registry/core/<kind>/strategy.go `ToSelectableFields`,
// and apiextensions-apiserver for custom resources: metadata.name and metadata.namespace only).
const SELECTABLE: Record<string, readonly string[]> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  nodes: ['spec.unschedulable'],
  namespaces: ['status.phase'],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
};

export interface FieldRequirement {
  field: string;
  value: string;
  equal: boolean;
}

/** The string a field selector compares, as the registries' GetAttrs render it (booleans as "true"/"false"). */
export function fieldValue(obj: KubeObject, field: string): string {
  if (field === 'source') {
    const source = (obj as { source?: { component?: string } }).source;
    return source?.component ?? '';
  }
  let node: unknown = obj;
  for (const part of field.split('.')) {
    node = node != null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node === 'string') return node;
  if (typeof node === 'boolean' || typeof node === 'number') return String(node);
  return '';
}

// fields.ParseSelector: `\,`, `\=` and `\\` escape inside values.
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === '\\' && i + 1 < text.length) {
      current += c + (text[i + 1] ?? '');
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

const unescape = (value: string) => value.replace(/\\(.)/g, '$1');

/** `fieldSelector` parsed and checked against the fields `resource` exposes. */
export function parseFieldSelector(text: string | null | undefined, resource: string): FieldRequirement[] {
  if (!text?.trim()) return [];
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...(SELECTABLE[resource] ?? [])]);
  return splitUnescaped(text, ',').map((term) => {
    const match = /^([^=!]+?)(==|=|!=)(.*)$/s.exec(term.trim());
    if (!match) throw new ApiStatusError(400, 'BadRequest', `invalid selector: '${text}'; can't understand '${term}'`);
    const field = (match[1] ?? '').trim();
    if (!allowed.has(field)) throw new ApiStatusError(400, 'BadRequest', `field label not supported: ${field}`);
    return { field, value: unescape(match[3] ?? ''), equal: match[2] !== '!=' };
  });
}

export function fieldSelectorMatcher(requirements: readonly FieldRequirement[]): Matcher | undefined {
  if (requirements.length === 0) return undefined;
  return (obj) => requirements.every((r) => (fieldValue(obj, r.field) === r.value) === r.equal);
}
