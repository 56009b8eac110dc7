import { isRecord, jsonText } from './field-set.js';

// The part of kubectl's JSONPath (k8s.io/client-go/util/jsonpath) that CRD printer columns use: dotted fields with
// `\.` escapes (`.metadata.labels.karpenter\.sh/nodepool`), `[n]`, `[*]`, `['key']` and filters such as
// `[?(@.type=="Ready")]`. Missing keys yield no result, as the column convertor sets AllowMissingKeys(true).

type Segment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Segment[]; op?: '==' | '!=' | '<' | '<=' | '>' | '>='; value?: unknown };

export function parseJsonPath(expression: string): Segment[] {
  const trimmed = expression.trim();
  const body = trimmed.startsWith('{') && trimmed.endsWith('}') ? trimmed.slice(1, -1) : trimmed;
  return parseSegments(body.startsWith('@') ? body.slice(1) : body, expression);
}

function parseSegments(text: string, expression: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      let name = '';
      i++;
      while (i < text.length && text[i] !== '.' && text[i] !== '[') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        name += text[i];
        i++;
      }
      if (name === '') throw new Error(`unsupported JSONPath ${expression}: recursive descent`);
      segments.push(name === '*' ? { kind: 'all' } : { kind: 'field', name });
    } else if (c === '[') {
      const end = closingBracket(text, i);
      segments.push(parseBracket(text.slice(i + 1, end).trim(), expression));
      i = end + 1;
    } else {
      throw new Error(`unsupported JSONPath ${expression}: unexpected ${c ?? ''} at ${i}`);
    }
  }
  return segments;
}

function closingBracket(text: string, open: number): number {
  let quote: string | undefined;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') {
      depth--;
      if (depth === 0 && c === ']') return i;
    }
  }
  throw new Error(`unsupported JSONPath: unclosed [ at ${open} in ${text}`);
}

function parseBracket(inner: string, expression: string): Segment {
  if (inner === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted) return { kind: 'field', name: quoted[2] ?? '' };
  const filter = /^\?\(\s*@(.*?)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$/.exec(inner);
  if (!filter) throw new Error(`unsupported JSONPath ${expression}: [${inner}]`);
  const [, path = '', op, literal] = filter;
  return {
    kind: 'filter',
    path: parseSegments(path, expression),
    ...(op ? { op: op as '==', value: parseLiteral(literal ?? '') } : {}),
  };
}

function parseLiteral(text: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2];
  if (text === 'true' || text === 'false') return text === 'true';
  const n = Number(text);
  return Number.isNaN(n) ? text : n;
}

export function evaluateJsonPath(segments: readonly Segment[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const segment of segments) current = current.flatMap((value) => step(segment, value));
  return current;
}

function step(segment: Segment, value: unknown): unknown[] {
  switch (segment.kind) {
    case 'field':
      return isRecord(value) && segment.name in value ? [value[segment.name]] : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const item: unknown = value[segment.index < 0 ? value.length + segment.index : segment.index];
      return item === undefined ? [] : [item];
    }
    case 'all':
      return Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
    case 'filter':
      return Array.isArray(value) ? value.filter((item) => matches(segment, item)) : [];
  }
}

function matches(filter: Extract<Segment, { kind: 'filter' }>, item: unknown): boolean {
  const found = evaluateJsonPath(filter.path, item);
  if (!filter.op) return found.length > 0;
  const [left] = found;
  if (left === undefined) return false;
  const right = filter.value;
  switch (filter.op) {
    case '==':
      return same(left, right);
    case '!=':
      return !same(left, right);
    default: {
      const [a, b] = [Number(left), Number(right)];
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return filter.op === '<' ? a < b : filter.op === '<=' ? a <= b : filter.op === '>' ? a > b : a >= b;
    }
  }
}

// client-go jsonpath compares a filter's operands as text when they are scalars.
function same(left: unknown, right: unknown): boolean {
  return jsonText(left) === jsonText(right);
}
