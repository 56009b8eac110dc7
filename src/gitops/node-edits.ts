// A node given a new value with the fewest bytes changed: equal parts untouched, a scalar rewritten in its own
// quoting, a map whose keys stay the same changed key by key, a list changed from its first differing item on (so
// `- id: ami-1 # amd64` keeps its comment when only the id changes, and the budgets a NodePool keeps stay as
// written). Pure.
import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { blockText, columnOf, flowText, insertPairEdit, lineStart, replaceEdit, scalarEdit, type Plain, type Style, type TextEdit } from './yaml-edit.js';

const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v != null && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)]));
  return v;
}

const isPlainMap = (v: Plain): v is { [key: string]: Plain } => typeof v === 'object' && !Array.isArray(v);

/** The edits that make `node` hold `value`; `keyColumn`: see replaceEdit. */
export function valueEdits(text: string, doc: Document.Parsed, node: Node, value: Plain, style: Style, keyColumn?: number): TextEdit[] {
  if (!isAlias(node) && same(node.toJS(doc), value)) return [];
  if (isScalar(node) && typeof value === 'string' && typeof node.value === 'string') return [scalarEdit(node, value, style)];
  if (isMap(node) && isPlainMap(value) && sameKeys(node, value)) {
    return node.items.flatMap((p) => {
      const key = String((p.key as { value: unknown }).value);
      return valueEdits(text, doc, p.value as Node, value[key]!, style, columnOf(text, (p.key as Node).range![0]));
    });
  }
  if (isMap(node) && isPlainMap(value) && renamedPair(node, value)) {
    // One key for another (alias → id): the key and its value rewritten, what follows them (a comment) kept.
    const pair = node.items[0]!;
    const [key, v] = Object.entries(value)[0]!;
    return [scalarEdit(pair.key as Scalar, key, style), scalarEdit(pair.value as Scalar, v as string, style)];
  }
  if (isSeq(node) && Array.isArray(value) && node.items.length > 0 && value.length > 0) {
    if (!node.flow) return listEdits(text, doc, node, value, style);
    if (value.length === node.items.length && node.items.every((item, i) => changesInPlace(item as Node, value[i]!))) {
      return node.items.flatMap((item, i) => valueEdits(text, doc, item as Node, value[i]!, style));
    }
  }
  return [replaceEdit(text, node, value, style, keyColumn)];
}

/** A map of one scalar pair, and a value of one string pair under another key. */
function renamedPair(map: YAMLMap, value: { [key: string]: Plain }): boolean {
  const entries = Object.entries(value);
  const pair = map.items[0];
  return map.items.length === 1 && entries.length === 1 && typeof entries[0]![1] === 'string' && isScalar(pair?.key) && isScalar(pair.value) && typeof pair.value.value === 'string';
}

/** An item that can take `value` by changing scalars: a map with the same keys (or one key for another), a string. */
function changesInPlace(item: Node, value: Plain): boolean {
  return (isMap(item) && isPlainMap(value) && (sameKeys(item, value) || renamedPair(item, value))) || (isScalar(item) && typeof value === 'string');
}

function sameKeys(map: YAMLMap, value: { [key: string]: Plain }): boolean {
  const keys = map.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '\0'));
  const wanted = Object.keys(value);
  return keys.length === wanted.length && wanted.every((k) => keys.includes(k)) && map.items.every((p) => p.value != null);
}

/** A block list: items that stay are left, items of the same shape change in place, the rest is written anew. */
function listEdits(text: string, doc: Document.Parsed, seq: YAMLSeq, value: Plain[], style: Style): TextEdit[] {
  const items = seq.items as Node[];
  const first = items.findIndex((item, i) => i >= value.length || !same(item.toJS(doc), value[i]));
  if (first === -1) return value.length > items.length ? [appendItems(text, seq, value.slice(items.length), style)] : [];
  // Same length and each changed item a map with the same keys (or a scalar): change the values in place.
  if (value.length === items.length) {
    const inPlace = items.slice(first).every((item, j) => changesInPlace(item, value[first + j]!));
    if (inPlace) return items.flatMap((item, i) => valueEdits(text, doc, item, value[i]!, style));
  }
  // From the first item that differs: its line on, to the end of the list, written anew at the list's column.
  const column = columnOf(text, seq.range![0]);
  const start = lineStart(text, items[first]!.range![0]);
  const end = seq.range![1];
  const lines = value.slice(first).map((v) => `${' '.repeat(column)}- ${blockText(v, column + 2, style)}\n`).join('');
  if (value.length <= first) return [{ start, end, text: '' }];
  return [{ start, end, text: text[end - 1] === '\n' ? lines : lines.trimEnd() }];
}

/** New items after the last one of a block list, at its column. */
function appendItems(text: string, seq: YAMLSeq, values: Plain[], style: Style): TextEdit {
  const column = columnOf(text, seq.range![0]);
  const at = seq.range![1];
  const lines = values.map((v) => `${' '.repeat(column)}- ${blockText(v, column + 2, style)}\n`).join('');
  return { start: at, end: at, text: text[at - 1] === '\n' ? lines : `\n${lines.trimEnd()}` };
}

/** A new item after item `after` of a list (block or flow), e.g. one more JSON 6902 operation. */
export function insertItemEdit(text: string, seq: YAMLSeq, after: number, value: Plain, style: Style): TextEdit {
  const item = seq.items[after] as Node;
  if (seq.flow === true || style.json) {
    const at = item.range![1];
    return { start: at, end: at, text: `, ${flowText(value, style)}` };
  }
  const column = columnOf(text, seq.range![0]);
  const next = seq.items[after + 1] as Node | undefined;
  const at = next !== undefined ? lineStart(text, next.range![0]) : seq.range![1];
  const line = `${' '.repeat(column)}- ${blockText(value, column + 2, style)}\n`;
  return { start: at, end: at, text: text[at - 1] === '\n' ? line : `\n${line.trimEnd()}` };
}

/** New pairs in a map, before the pair `before` if named: `{disruption: {budgets: [...]}}` under `spec`. */
export function insertEdit(text: string, map: YAMLMap, pairs: { [key: string]: Plain }, style: Style, before?: string): TextEdit {
  const pair = before === undefined ? undefined : map.items.find((p) => isScalar(p.key) && p.key.value === before);
  if (map.items.length === 0) return replaceEdit(text, map, pairs, style);
  return insertPairEdit(text, map, pairs, style, pair);
}
