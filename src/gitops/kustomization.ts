// A kustomization.yaml as `pin` reads it, without the kustomize binary: the fields that can make or change an
// EC2NodeClass's or NodePool's spec are read (resources, patches, and the names), the fields that cannot are passed
// over, and anything else is refused naming the file and the field, since it could set the terms where `pin` would
// not look. Pure: the command reads the files the references name (`kustomizationRefs`) before the build.
import { posix } from 'node:path';
import { UsageError } from '../errors.js';
import { docValue, type YamlFile } from './yaml-file.js';

/** kustomize's names for the file, in the order it looks for them (api/konfig `RecognizedKustomizationFileNames`). */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** A patch target as kustomize selects it; `name` is a regular expression, as in kustomize. */
export interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}

/** One patch: in a file (`path`, relative to the kustomization) or inline; `target` for `patches:` and JSON 6902. */
export interface PatchRef {
  field: 'patches' | 'patchesStrategicMerge' | 'patchesJson6902';
  index: number;
  path?: string;
  inline?: string;
  target?: PatchTarget;
}

/** Where an inline patch's text is in its kustomization, and the name it goes by as a file of its own. */
export function inlinePatch(k: Kustomization, ref: PatchRef): { path: string; host: (string | number)[] } {
  return {
    path: `${k.file}#${ref.field}[${ref.index}]`,
    host: ref.field === 'patchesStrategicMerge' ? [ref.field, ref.index] : [ref.field, ref.index, 'patch'],
  };
}

export interface Kustomization {
  /** The kustomization file. */
  file: string;
  dir: string;
  resources: string[];
  patches: PatchRef[];
  namePrefix: string;
  nameSuffix: string;
}

// Fields that cannot change the spec of an EC2NodeClass or NodePool: labels, annotations, namespaces (both kinds are
// cluster-scoped), images, replicas, generated ConfigMaps and Secrets, and kustomize's own settings.
const PASSED_OVER = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'namespace',
  'commonLabels',
  'labels',
  'commonAnnotations',
  'images',
  'replicas',
  'configMapGenerator',
  'secretGenerator',
  'generatorOptions',
  'buildMetadata',
  'sortOptions',
  'openapi',
  'crds',
  'configurations',
]);
const READ = new Set(['resources', 'bases', 'patches', 'patchesStrategicMerge', 'patchesJson6902', 'namePrefix', 'nameSuffix']);

const SUPPORTED_HINT =
  'pin reads resources (files and directories), patches (path or inline, with a target by group, version, kind and name), patchesStrategicMerge, patchesJson6902, namePrefix and nameSuffix; pin the files that field builds on, or move the terms into a supported patch';

const refuse = (file: string, what: string) => new UsageError(`${file}: ${what}; nothing was changed`, { hint: SUPPORTED_HINT });

/** The kustomization in a file, or a refusal naming the file and the field it cannot read. */
export function readKustomization(file: YamlFile): Kustomization {
  if (file.docs.length !== 1) throw refuse(file.path, `a kustomization is one YAML document, this file has ${file.docs.length}`);
  const value = docValue(file.docs[0]!);
  if (value == null || typeof value !== 'object' || Array.isArray(value)) throw refuse(file.path, 'not a kustomization (a map of fields)');
  const k = value as Record<string, unknown>;
  for (const key of Object.keys(k)) {
    if (!READ.has(key) && !PASSED_OVER.has(key)) throw refuse(file.path, `${key} is not supported`);
  }
  const dir = posix.dirname(file.path);
  const strings = (key: string): string[] => {
    const v = k[key] ?? [];
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw refuse(file.path, `${key} must be a list of strings`);
    return v as string[];
  };
  const resources = [...strings('resources'), ...strings('bases')];
  for (const r of resources) {
    if (/^[a-z][a-z0-9+.-]*:\/\/|^git@|^github\.com\//i.test(r)) throw refuse(file.path, `resource ${r} is remote`);
  }
  const patches: PatchRef[] = [
    ...strings('patchesStrategicMerge').map((s, index): PatchRef =>
      // kustomize takes an entry that parses as a YAML map as an inline patch, else a path.
      /\n|^\s*[{]|:\s/.test(s) ? { field: 'patchesStrategicMerge', index, inline: s } : { field: 'patchesStrategicMerge', index, path: s },
    ),
    ...patchList(file.path, k.patches, 'patches'),
    ...patchList(file.path, k.patchesJson6902, 'patchesJson6902'),
  ];
  const name = (key: string): string => {
    const v = k[key] ?? '';
    if (typeof v !== 'string') throw refuse(file.path, `${key} must be a string`);
    return v;
  };
  return { file: file.path, dir, resources, patches, namePrefix: name('namePrefix'), nameSuffix: name('nameSuffix') };
}

function patchList(file: string, v: unknown, field: 'patches' | 'patchesJson6902'): PatchRef[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw refuse(file, `${field} must be a list`);
  return v.map((entry: unknown, index): PatchRef => {
    const e = (entry ?? {}) as Record<string, unknown>;
    const where = `${field}[${index}]`;
    if (typeof e.path !== 'string' && typeof e.patch !== 'string') throw refuse(file, `${where} has neither path nor patch`);
    if (field === 'patchesJson6902' && e.target === undefined) throw refuse(file, `${where} has no target`);
    const target = e.target === undefined ? undefined : patchTarget(file, where, e.target);
    return {
      field,
      index,
      ...(typeof e.path === 'string' ? { path: e.path } : { inline: e.patch as string }),
      ...(target !== undefined ? { target } : {}),
    };
  });
}

function patchTarget(file: string, where: string, t: unknown): PatchTarget {
  if (t == null || typeof t !== 'object') throw refuse(file, `${where}.target must be a map`);
  const target = t as Record<string, unknown>;
  for (const key of ['labelSelector', 'annotationSelector']) {
    if (target[key] !== undefined) throw refuse(file, `${where}.target.${key} is not supported`);
  }
  const out: PatchTarget = {};
  for (const key of ['group', 'version', 'kind', 'name'] as const) {
    if (typeof target[key] === 'string') out[key] = target[key];
  }
  return out;
}

/** The paths a kustomization names (resources, patch files), resolved against its directory: the command reads them. */
export function kustomizationRefs(k: Kustomization): string[] {
  const paths = [...k.resources, ...k.patches.flatMap((p) => (p.path !== undefined ? [p.path] : []))];
  return paths.map((p) => posix.normalize(posix.join(k.dir, p)));
}
