// A Helm values file: `--values-path a.b.c` names where the chart takes an EC2NodeClass's AMI selection from, either
// the list of terms itself or a map that holds `amiSelectorTerms` (and `amiFamily`). The chart's templates are not
// read: the values are what the chart renders the class from, so the values file is what decides it. Pure.
import { isMap, isSeq } from 'yaml';
import { UsageError } from '../errors.js';
import type { BuiltObject, Decider, Unit } from './objects.js';
import { deepestPrefix, docValue, nodeAt, type YamlFile } from './yaml-file.js';

/** `a.b.c` → its keys; a key with a dot in it is written in quotes: `karpenter."node.class"`. */
export function parseValuesPath(text: string): string[] {
  const keys = [...text.matchAll(/"([^"]*)"|([^.]+)/g)].map((m) => m[1] ?? m[2]!);
  if (text === '' || keys.length === 0 || keys.some((k) => k === ''))
    throw new UsageError(`--values-path ${JSON.stringify(text)} is not a path of keys`, { hint: 'e.g. --values-path karpenter.nodeClass.amiSelectorTerms' });
  return keys;
}

/** A file that has no document with apiVersion and kind: values, not manifests. */
export function isValuesFile(file: YamlFile): boolean {
  return !file.docs.some((d) => {
    const v = docValue(d) as Record<string, unknown> | null;
    return v != null && typeof v === 'object' && typeof v.apiVersion === 'string' && typeof v.kind === 'string';
  });
}

/** The EC2NodeClass selection a values file holds at the path, as a unit of its own. */
export function valuesUnit(file: YamlFile, keys: readonly string[], pathText: string): Unit {
  const doc = file.docs[0];
  const node = doc === undefined ? undefined : nodeAt(doc, keys);
  if (doc === undefined || node === undefined) {
    const { found, keys: there } = doc === undefined ? { found: [], keys: [] } : deepestPrefix(doc, [...keys]);
    const at = found.length === 0 ? 'the top level' : found.join('.');
    throw new UsageError(`--values-path ${pathText} does not exist in ${file.path}: ${at} has ${there.length > 0 ? `the keys ${there.join(', ')}` : 'no keys'}; nothing was changed`, {
      hint: 'name the list of amiSelectorTerms, or the map that holds amiSelectorTerms and amiFamily, as the chart reads them',
    });
  }
  const at = (path: readonly (string | number)[]) => ({ file: file.path, doc: 0, path: [...keys, ...path] });
  let terms: unknown;
  let amiFamily: unknown;
  let deciders: BuiltObject['deciders'];
  if (isSeq(node)) {
    terms = valueIn(doc, keys);
    const fixed: Decider = { kind: 'fixed', why: `--values-path ${pathText} names the list of terms, so there is no amiFamily beside it to set` };
    deciders = { amiSelectorTerms: { kind: 'node', at: at([]) }, amiFamily: fixed };
  } else if (isMap(node)) {
    const v = valueIn(doc, keys) as Record<string, unknown>;
    if (v.amiSelectorTerms === undefined && v.amiFamily === undefined) {
      throw new UsageError(`--values-path ${pathText} in ${file.path} is a map without amiSelectorTerms or amiFamily; nothing was changed`, {
        hint: 'name the list of terms itself, or the map that holds amiSelectorTerms',
      });
    }
    [terms, amiFamily] = [v.amiSelectorTerms, v.amiFamily];
    const decider = (key: string): Decider => (v[key] !== undefined ? { kind: 'node', at: at([key]) } : { kind: 'absent', map: at([]), keys: [key] });
    deciders = { amiSelectorTerms: decider('amiSelectorTerms'), amiFamily: decider('amiFamily') };
  } else {
    throw new UsageError(`--values-path ${pathText} in ${file.path} is neither a list of terms nor a map; nothing was changed`);
  }
  if (terms !== undefined && !Array.isArray(terms)) throw new UsageError(`${file.path}: amiSelectorTerms at --values-path ${pathText} is not a list; nothing was changed`);
  const name = pathText;
  const spec = { ...(terms !== undefined ? { amiSelectorTerms: terms } : {}), ...(typeof amiFamily === 'string' ? { amiFamily } : {}) };
  const object: BuiltObject = {
    kind: 'EC2NodeClass',
    apiVersion: 'karpenter.k8s.aws/v1',
    name,
    names: [name],
    value: { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name }, spec },
    origin: at([]),
    deciders,
  };
  return { label: `${file.path}#${pathText}`, kind: 'helm-values', objects: [object] };
}

function valueIn(doc: YamlFile['docs'][number], keys: readonly string[]): unknown {
  let v = docValue(doc);
  for (const k of keys) v = (v as Record<string, unknown>)[k];
  return v;
}
