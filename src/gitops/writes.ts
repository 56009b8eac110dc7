// What `pin` writes → the files changed. Each field is written where it is decided (objects.ts `Decider`): the
// manifest, the overlay's patch, the JSON 6902 operation, the values file. Two objects decided by one node (two
// overlays on one base) must want the same value there, or nothing is written. Pure.
import { isMap, isScalar, isSeq, type Document, type Node, type YAMLMap, type YAMLSeq } from 'yaml';
import { UsageError } from '../errors.js';
import type { Decider, Field, Location } from './objects.js';
import { FIELDS, valueAt } from './objects.js';
import { pointer } from './patches.js';
import { insertEdit, insertItemEdit, valueEdits } from './node-edits.js';
import { applyEdits, columnOf, scalarEdit, styleOf, type Plain, type TextEdit } from './yaml-edit.js';
import { nodeAt, type YamlFile } from './yaml-file.js';

/** One field of one object given a value. */
export interface Write {
  field: Field;
  decider: Decider;
  value: Plain;
  /** Whether it changes what the object gets (false: written only so that a shared node's other users agree). */
  changed: boolean;
  /** The field's value in the built object now (a JSON 6902 operation that sets part of it is changed within it). */
  current: unknown;
  /** The object, for messages: `overlays/prod: ec2nodeclass/default`. */
  by: string;
  /** For amiFamily: where the terms of the same object are decided (an absent amiFamily is written beside them). */
  terms?: Decider;
}

export interface FileChange {
  path: string;
  before: string;
  after: string;
}

const locKey = (l: Location) => `${l.file}#${l.doc}:${l.path.join('/')}`;

function writeKey(w: Write): string {
  const d = w.decider;
  if (d.kind === 'node') return locKey(d.at);
  if (d.kind === 'op') return `${d.file}#${d.doc}:op${d.op}`;
  if (d.kind === 'absent' && w.field === 'amiFamily' && w.terms !== undefined && w.terms.kind !== 'absent') return `beside:${termsKey(w.terms)}`;
  if (d.kind === 'absent' && d.map !== undefined) return `${locKey(d.map)}+${(d.keys ?? []).join('/')}`;
  return `${w.by}:${w.field}`;
}
const termsKey = (d: Decider) => (d.kind === 'node' ? locKey(d.at) : d.kind === 'op' ? `${d.file}#${d.doc}:op${d.op}` : d.kind);

const shown = (v: unknown) => JSON.stringify(v);

/** The files as the writes change them; files nothing changes are left out. */
export function fileChanges(files: ReadonlyMap<string, YamlFile>, writes: readonly Write[]): FileChange[] {
  const byKey = new Map<string, Write>();
  for (const w of writes) {
    const key = writeKey(w);
    const other = byKey.get(key);
    if (other !== undefined && shown(other.value) !== shown(w.value)) {
      throw new UsageError(
        `${describe(w.decider)} decides ${FIELDS[w.field].join('.')} of both ${other.by} and ${w.by}, which need different values (${shown(other.value)} and ${shown(w.value)}); nothing was changed`,
        { hint: 'set the field in each overlay (a patch of its own), or pin the two apart' },
      );
    }
    if (other === undefined || (!other.changed && w.changed)) byKey.set(key, w);
  }
  const edits = new Map<string, TextEdit[]>();
  const add = (file: string, e: TextEdit[]) => edits.set(file, [...(edits.get(file) ?? []), ...e]);
  const absent = new Map<string, { map: Location; pairs: Record<string, Plain>; before?: string }>();
  for (const w of byKey.values()) {
    if (!w.changed) continue;
    const d = w.decider;
    if (d.kind === 'fixed') throw new UsageError(`${w.by}: ${FIELDS[w.field].join('.')} must become ${shown(w.value)}, and ${d.why}; nothing was changed`, { hint: 'name the map that holds amiSelectorTerms and amiFamily with --values-path, or pin with --pin alias (it keeps amiFamily as it is)' });
    if (d.kind === 'node') add(d.at.file, nodeWrite(files, d.at, w.value));
    else if (d.kind === 'op') add(d.file, opWrite(files, d, w));
    else {
      const place = absentPlace(w);
      if ('op' in place) add(place.file, [opInsert(files, place, w)]);
      else {
        const key = locKey(place.map);
        const entry = absent.get(key) ?? { map: place.map, pairs: {}, ...(place.before !== undefined ? { before: place.before } : {}) };
        let nested: Plain = w.value;
        for (const k of [...place.keys.slice(1)].reverse()) nested = { [k]: nested };
        entry.pairs[place.keys[0]!] = nested;
        absent.set(key, entry);
      }
    }
  }
  for (const { map, pairs, before } of absent.values()) add(map.file, [mapInsert(files, map, pairs, before)]);
  // An inline patch changed is its kustomization's string changed.
  for (const [path, e] of [...edits]) {
    const host = fileOf(files, path).host;
    if (host === undefined) continue;
    edits.delete(path);
    add(host.file, [hostEdit(files, host, applyEdits(fileOf(files, path).text, e))]);
  }
  return [...edits].map(([path, e]) => {
    const before = fileOf(files, path).text;
    // A file written with CRLF line ends (Windows) gets them in what is written too.
    const crlf = before.includes('\r\n');
    return { path, before, after: applyEdits(before, crlf ? e.map((x) => ({ ...x, text: x.text.replace(/\r?\n/g, '\r\n') })) : e) };
  }).filter((c) => c.after !== c.before);
}

/** The kustomization's string that holds an inline patch, given the patch's new text, in the string's own style. */
function hostEdit(files: ReadonlyMap<string, YamlFile>, host: NonNullable<YamlFile['host']>, text: string): TextEdit {
  const { f, d } = docOf(files, host.file, host.doc);
  const node = nodeAt(d, host.path);
  if (!isScalar(node)) throw new Error(`writes: the inline patch at ${host.path.join('.')} is not a string`);
  const [start, end] = node.range!;
  const old = f.text.slice(start, end);
  if (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') return scalarEdit(node, text, styleOf(f.text));
  // `|-` and its lines, at the indentation they had.
  const header = old.slice(0, old.indexOf('\n'));
  const indent = /\n([ \t]*)\S/.exec(old)?.[1] ?? '  ';
  const lines = text.replace(/\n$/, '').split('\n').map((l) => (l === '' ? '' : `${indent}${l}`));
  return { start, end, text: `${header}\n${lines.join('\n')}${old.endsWith('\n') ? '\n' : ''}` };
}

function describe(d: Decider): string {
  if (d.kind === 'node') return d.at.file;
  if (d.kind === 'op') return `${d.file} operation ${d.op}`;
  return d.kind === 'absent' && d.map !== undefined ? d.map.file : 'one place';
}

function fileOf(files: ReadonlyMap<string, YamlFile>, path: string): YamlFile {
  const f = files.get(path);
  if (f === undefined) throw new Error(`writes: ${path} was not read`);
  return f;
}

function docOf(files: ReadonlyMap<string, YamlFile>, file: string, doc: number): { f: YamlFile; d: Document.Parsed } {
  const f = fileOf(files, file);
  return { f, d: f.docs[doc]! };
}

function nodeWrite(files: ReadonlyMap<string, YamlFile>, at: Location, value: Plain): TextEdit[] {
  const { f, d } = docOf(files, at.file, at.doc);
  const node = nodeAt(d, at.path);
  if (node === undefined) throw new Error(`writes: no node at ${locKey(at)}`);
  return valueEdits(f.text, d, node, value, styleOf(f.text));
}

/**
 * A JSON 6902 operation that sets part of the field: where the new value differs from the current one only at the
 * part it sets (the alias of term 0), its `value` changes; otherwise it is made to set the whole field.
 */
function opWrite(files: ReadonlyMap<string, YamlFile>, d: Extract<Decider, { kind: 'op' }>, w: Write): TextEdit[] {
  const { f, d: doc } = docOf(files, d.file, d.doc);
  const style = styleOf(f.text);
  const op = nodeAt(doc, [d.op]) as YAMLMap;
  const path = String(op.get('path'));
  const sub = pointer(path).slice(d.field.length);
  const part = valueAt(w.value, sub);
  const valueNode = nodeAt(doc, [d.op, 'value']);
  if (part !== undefined && valueNode !== undefined && shown(withPart(w.current, sub, part)) === shown(w.value)) {
    return valueEdits(f.text, doc, valueNode, part as Plain, style);
  }
  const pathNode = nodeAt(doc, [d.op, 'path'])!;
  if (valueNode === undefined) throw new Error('writes: an add or replace operation without a value');
  const valueKey = op.items.find((p) => isScalar(p.key) && p.key.value === 'value')!.key as Node;
  return [
    ...valueEdits(f.text, doc, pathNode, `/${d.field.join('/')}`, style),
    ...valueEdits(f.text, doc, valueNode, w.value, style, columnOf(f.text, valueKey.range![0])),
  ];
}

function withPart(current: unknown, sub: readonly string[], part: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(current ?? null)) as unknown;
  let v = copy as Record<string, unknown>;
  for (const k of sub.slice(0, -1)) {
    if (v == null || typeof v !== 'object') return undefined;
    v = v[k] as Record<string, unknown>;
  }
  if (v == null || typeof v !== 'object') return undefined;
  v[sub.at(-1)!] = part;
  return copy;
}

type Place = { map: Location; keys: readonly string[]; before?: string } | { op: number; file: string; doc: number };

/** Where an absent field goes: amiFamily beside the terms (before them, or one more operation after theirs). */
function absentPlace(w: Write): Place {
  const d = w.decider as Extract<Decider, { kind: 'absent' }>;
  const t = w.terms;
  if (w.field === 'amiFamily' && t !== undefined && t.kind === 'node') {
    if (t.at.path.at(-1) === 'amiSelectorTerms') return { map: { ...t.at, path: t.at.path.slice(0, -1) }, keys: ['amiFamily'], before: 'amiSelectorTerms' };
    return { op: t.at.path[0] as number, file: t.at.file, doc: t.at.doc };
  }
  if (w.field === 'amiFamily' && t?.kind === 'op') return { op: t.op, file: t.file, doc: t.doc };
  if (d.map === undefined) throw new Error(`writes: nowhere to write ${w.field} of ${w.by}`);
  return { map: d.map, keys: d.keys ?? [w.field] };
}

function opInsert(files: ReadonlyMap<string, YamlFile>, place: { op: number; file: string; doc: number }, w: Write): TextEdit {
  const { f, d } = docOf(files, place.file, place.doc);
  const ops = nodeAt(d, []) as YAMLSeq;
  if (!isSeq(ops)) throw new Error(`writes: ${place.file} is not a list of operations`);
  return insertItemEdit(f.text, ops, place.op, { op: 'add', path: `/${FIELDS[w.field].join('/')}`, value: w.value }, styleOf(f.text));
}

/** New keys in the deepest map that exists on the way (nested maps for the rest). */
function mapInsert(files: ReadonlyMap<string, YamlFile>, at: Location, pairs: Record<string, Plain>, before?: string): TextEdit {
  const { f, d } = docOf(files, at.file, at.doc);
  const path = [...at.path];
  let rest: Record<string, Plain> = pairs;
  // A single key that is there already (a map the manifest has) is descended into.
  for (let keys = Object.keys(rest); keys.length === 1 && isMap(nodeAt(d, [...path, keys[0]!])); keys = Object.keys(rest)) {
    path.push(keys[0]!);
    rest = rest[keys[0]!] as Record<string, Plain>;
  }
  const map = nodeAt(d, path);
  if (!isMap(map)) throw new Error(`writes: ${locKey({ ...at, path })} is not a map`);
  return insertEdit(f.text, map, rest, styleOf(f.text), before);
}
