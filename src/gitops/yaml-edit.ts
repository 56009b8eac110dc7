// Changing a YAML node in place. yaml's Document.toString() prints the whole document anew (it re-indents four-space
// files, folds long lines, pads flow maps), so a change is the bytes of the changed node replaced, at the node's own
// range: everything outside it, comments, anchors, quoting, blank lines and `---` included, stays byte for byte.
// A scalar keeps its quoting; a new collection is written in the style of the one it replaces (block at its column,
// flow, or JSON in a JSON file). Pure.
import { isMap, isScalar, isSeq, stringify, type Node, type Pair, type Scalar, type YAMLMap } from 'yaml';

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** A value karp-drift writes: AMI selector terms, budgets, annotations. */
export type Plain = string | number | boolean | Plain[] | { [key: string]: Plain };

/** How new text is written: quotes (`json`: every string and key double-quoted) and the indentation step. */
export interface Style {
  json: boolean;
  quote: 'single' | 'double';
  /** Spaces per nesting level. */
  step: number;
  /** A sequence under a key is indented one step (`key:\n  - a`), not at the key's column (`key:\n- a`). */
  indentSeq: boolean;
}

// YAML 1.1 reads these as booleans or null (sigs.k8s.io/yaml, behind kubectl and Argo CD, reads YAML 1.1), yaml 1.2
// as strings: quoted either way.
const YAML11 = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|~)$/;

/** A string as a scalar: plain where it reads back as the same string in YAML 1.1 and 1.2, else quoted. */
export function scalarText(value: string | number | boolean, style: Pick<Style, 'json' | 'quote'>, keep?: Scalar.Type): string {
  if (typeof value !== 'string') return String(value);
  const quoted = () => (style.quote === 'single' && !/[\n\\]/.test(value) ? `'${value.replace(/'/g, "''")}'` : JSON.stringify(value));
  if (style.json || keep === 'QUOTE_DOUBLE') return JSON.stringify(value);
  if (keep === 'QUOTE_SINGLE') return /\n/.test(value) ? JSON.stringify(value) : `'${value.replace(/'/g, "''")}'`;
  const plain = stringify(value, { lineWidth: 0 }).trimEnd();
  return plain === value && !YAML11.test(value) ? value : quoted();
}

/** The edit that gives a scalar node a new value, in its own quoting. */
export function scalarEdit(node: Scalar, value: string, style: Style): TextEdit {
  const [start, end] = node.range!;
  return { start, end, text: scalarText(value, style, node.type) };
}

/** Column of the character at `offset`. */
export function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** Offset of the start of the line `offset` is on. */
export const lineStart = (text: string, offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;

/** A value in block style, its first line at the current position and the others at `column`. */
export function blockText(value: Plain, column: number, style: Style): string {
  const pad = ' '.repeat(column);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value.map((v) => `- ${blockText(v, column + 2, style)}`).join(`\n${pad}`);
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return entries
      .map(([k, v]) => {
        const key = scalarText(k, style);
        if (Array.isArray(v) && v.length > 0) {
          const at = column + (style.indentSeq ? style.step : 0);
          return `${key}:\n${' '.repeat(at)}${blockText(v, at, style)}`;
        }
        if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0)
          return `${key}:\n${pad}${' '.repeat(style.step)}${blockText(v, column + style.step, style)}`;
        return `${key}: ${blockText(v, column + style.step, style)}`;
      })
      .join(`\n${pad}`);
  }
  return scalarText(value, style);
}

/** A value in flow style: `{id: ami-1}` (padded `{ id: ami-1 }` when the file pads), JSON in a JSON file. */
export function flowText(value: Plain, style: Style, padded = false): string {
  if (style.json) return JSON.stringify(value).replace(/":/g, '": ').replace(/,"/g, ', "').replace(/,\{/g, ', {');
  const [open, close] = padded ? [' ', ' '] : ['', ''];
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${open}${value.map((v) => flowText(v, style, padded)).join(', ')}${close}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${scalarText(k, style)}: ${flowText(v, style, padded)}`);
    return entries.length === 0 ? '{}' : `{${open}${entries.join(', ')}${close}}`;
  }
  return scalarText(value, style);
}

/**
 * The edit that replaces a collection (or a scalar) with `value`, in the style of what it replaces. `keyColumn`: the
 * node is the value of a block map's key at that column, so a scalar becomes a block collection under the key.
 */
export function replaceEdit(text: string, node: Node, value: Plain, style: Style, keyColumn?: number): TextEdit {
  const [start, end] = node.range!;
  const old = text.slice(start, end);
  const flow = (isMap(node) || isSeq(node)) && node.flow === true;
  const collection = typeof value === 'object' && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0);
  if (isScalar(node) && keyColumn !== undefined && collection && !style.json && /^[ \t]*(#.*)?$/m.test(text.slice(end, text.indexOf('\n', end) + 1 || text.length))) {
    const column = keyColumn + (Array.isArray(value) && !style.indentSeq ? 0 : style.step);
    let from = start;
    while (from > 0 && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
    // A comment after the scalar stays on the key's line.
    const eol = text.indexOf('\n', end) === -1 ? text.length : text.indexOf('\n', end);
    const comment = text.slice(end, eol).trimEnd();
    return { start: from, end: eol, text: `${comment}\n${' '.repeat(column)}${blockText(value, column, style)}` };
  }
  if (style.json && old.includes('\n')) {
    // A JSON value over several lines stays so, indented as JSON.stringify indents, from the line it starts on.
    const indent = ' '.repeat(columnOf(text, lineStart(text, start) + text.slice(lineStart(text, start)).search(/\S/)));
    const body = JSON.stringify(value, null, style.step).replace(/\n/g, `\n${indent}`);
    return { start, end: end - (old.length - old.trimEnd().length), text: body };
  }
  if (flow || isScalar(node) || style.json) {
    const body = flowText(value, style, /^[[{] /.test(old));
    return { start, end: end - (old.length - old.trimEnd().length), text: body };
  }
  const column = columnOf(text, start);
  return { start, end, text: `${blockText(value, column, style)}${old.endsWith('\n') ? '\n' : ''}` };
}

/**
 * New pairs in a block or flow map: before the pair `before` (on their own lines, at its column), else after the last
 * pair. A JSON file gets JSON members.
 */
export function insertPairEdit(text: string, map: YAMLMap, pairs: { [key: string]: Plain }, style: Style, before?: Pair): TextEdit {
  if (map.flow === true || style.json) {
    const members = Object.entries(pairs).map(([k, v]) => `${scalarText(k, style)}: ${flowText(v, style)}`);
    const anchor = before?.key as Node | undefined;
    if (anchor !== undefined) {
      // Before the pair; on a line of its own where the pair has one (a JSON file's members).
      const at = anchor.range![0];
      const own = /^\s*$/.test(text.slice(lineStart(text, at), at));
      const sep = own ? `,\n${' '.repeat(columnOf(text, at))}` : ', ';
      return { start: at, end: at, text: `${members.join(sep)}${sep}` };
    }
    const last = map.items.at(-1);
    const at = last === undefined ? map.range![0] + 1 : ((last.value as Node | null)?.range ?? (last.key as Node).range!)[1];
    return { start: at, end: at, text: last === undefined ? members.join(', ') : `, ${members.join(', ')}` };
  }
  const anchor = (before?.key as Node | undefined) ?? (map.items[0]?.key as Node | undefined);
  if (anchor === undefined) throw new Error('insertPairEdit: an empty block map has no column to write at');
  const column = columnOf(text, anchor.range![0]);
  const lines = `${' '.repeat(column)}${blockText(pairs, column, style)}\n`;
  if (before !== undefined) {
    // Above the comment lines that head the pair, so that they stay with it.
    let at = lineStart(text, (before.key as Node).range![0]);
    while (at > 0) {
      const above = lineStart(text, at - 1);
      if (!/^[ \t]*#/.test(text.slice(above, at)) || columnOf(text, above + text.slice(above).search(/\S/)) !== column) break;
      at = above;
    }
    return { start: at, end: at, text: lines };
  }
  const last = map.items.at(-1)!;
  const end = ((last.value as Node | null)?.range ?? (last.key as Node).range!)[1];
  const at = text[end - 1] === '\n' ? end : text.indexOf('\n', end) + 1 || text.length;
  return { start: at, end: at, text: at === text.length && !text.endsWith('\n') ? `\n${lines.trimEnd()}` : lines };
}

/** The text edits applied; overlapping edits are a bug in the caller. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let floor = Infinity;
  for (const e of sorted) {
    if (e.end > floor) throw new Error(`overlapping YAML edits at ${e.start}-${e.end}`);
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    floor = e.start;
  }
  return out;
}

/** How a file writes: JSON (its first non-space byte is `{` or `[`), the quotes its quoted scalars prefer, its indent. */
export function styleOf(text: string): Style {
  const json = /^\s*[{[]/.test(text);
  const singles = (text.match(/: '/g) ?? []).length;
  const doubles = (text.match(/: "/g) ?? []).length;
  const indents = [...text.matchAll(/\n( +)\S/g)].map((m) => m[1]!.length);
  const step = indents.length > 0 ? Math.min(...indents) : 2;
  // The first sequence under a key tells whether this file indents them.
  const seq = /^( *)[^\s#-][^\n]*:[ \t]*\n( *)- /m.exec(text);
  const indentSeq = seq == null || seq[2]!.length > seq[1]!.length;
  return { json, quote: singles > doubles ? 'single' : 'double', step: step > 0 && step <= 8 ? step : 2, indentSeq };
}
