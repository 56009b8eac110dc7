// The files `pin` was given → what they deploy, in units: each kustomize build (a kustomization no other one
// includes), the plain manifests of each directory, each Helm values path. Files a kustomization includes (its
// resources and patches) belong to its build only. Pure: the command reads the files, following kustomizationRefs.
import { posix } from 'node:path';
import { UsageError } from '../errors.js';
import { inlinePatch, kustomizationRefs, readKustomization, type Kustomization, type PatchRef } from './kustomization.js';
import { karpenterKind, manifestDeciders, type BuiltObject, type Unit } from './objects.js';
import { json6902, namedBy, strategicMerge, targets, type PatchDoc } from './patches.js';
import { docValue, parseYamlFile, type YamlFile } from './yaml-file.js';

/** Everything the command read. */
export interface SourceTree {
  /** Every file, by its path as given (posix separators). */
  files: Map<string, YamlFile>;
  /** Kustomization directories → their kustomization file. */
  kustomizations: Map<string, string>;
  /** What the user named or the walk found: kustomization directories and manifest files (not values files). */
  roots: { kustomizations: string[]; manifests: string[] };
}

/** Every file a kustomization includes, itself and through the ones it includes. */
function included(tree: SourceTree, dir: string, seen = new Set<string>()): Set<string> {
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const k = readKustomization(tree.files.get(tree.kustomizations.get(dir)!)!);
  for (const ref of kustomizationRefs(k)) {
    if (tree.kustomizations.has(ref)) included(tree, ref, seen);
    else seen.add(ref);
  }
  return seen;
}

/**
 * The units the tree deploys (kustomize builds first, then plain manifests by directory), and the files they come
 * from: the tree's, and each inline patch of a kustomization as a file of its own, hosted in it.
 */
export function buildUnits(source: SourceTree): { units: Unit[]; files: Map<string, YamlFile> } {
  const tree = withInlinePatches(source);
  const inside = new Set<string>();
  for (const dir of tree.roots.kustomizations) for (const p of included(tree, dir)) if (p !== dir) inside.add(p);
  const units: Unit[] = [];
  for (const dir of tree.roots.kustomizations) {
    if (inside.has(dir)) continue;
    units.push({ label: dir, kind: 'kustomize', objects: buildKustomization(tree, dir, []) });
  }
  const byDir = new Map<string, BuiltObject[]>();
  for (const path of tree.roots.manifests) {
    if (inside.has(path)) continue;
    const dir = posix.dirname(path);
    byDir.set(dir, [...(byDir.get(dir) ?? []), ...manifestObjects(tree.files.get(path)!)]);
  }
  for (const [dir, objects] of byDir) units.push({ label: dir, kind: 'manifests', objects });
  for (const u of units) requireUniqueNames(u);
  return { units, files: tree.files };
}

function withInlinePatches(tree: SourceTree): SourceTree {
  const files = new Map(tree.files);
  for (const file of tree.kustomizations.values()) {
    const k = readKustomization(tree.files.get(file)!);
    for (const ref of k.patches.filter((p) => p.inline !== undefined)) {
      const { path, host } = inlinePatch(k, ref);
      const parsed = parseYamlFile(`${k.file} ${ref.field}[${ref.index}]`, ref.inline!);
      if ('error' in parsed) throw new UsageError(`${parsed.error}; nothing was changed`);
      files.set(path, { ...parsed, path, host: { file: k.file, doc: 0, path: host } });
    }
  }
  return { ...tree, files };
}

/** The EC2NodeClasses and NodePools of a manifest file; other kinds are not pin's. */
export function manifestObjects(file: YamlFile): BuiltObject[] {
  return file.docs.flatMap((doc, i) => {
    const value = docValue(doc) as Record<string, unknown> | null;
    const kind = karpenterKind(value);
    if (kind === undefined || value == null) return [];
    const name = (value.metadata as { name?: unknown } | undefined)?.name;
    if (typeof name !== 'string') throw new UsageError(`${file.path} document ${i + 1}: ${kind} without metadata.name; nothing was changed`);
    return [{ kind, apiVersion: value.apiVersion as string, name, names: [name], value, origin: { file: file.path, doc: i, path: [] }, deciders: manifestDeciders(kind, file.path, i, value) }];
  });
}

function buildKustomization(tree: SourceTree, dir: string, stack: string[]): BuiltObject[] {
  if (stack.includes(dir)) throw new UsageError(`kustomizations include each other: ${[...stack, dir].join(' → ')}; nothing was changed`);
  const k = readKustomization(tree.files.get(tree.kustomizations.get(dir)!)!);
  let objects: BuiltObject[] = [];
  for (const r of k.resources) {
    const path = posix.normalize(posix.join(dir, r));
    if (tree.kustomizations.has(path)) objects.push(...buildKustomization(tree, path, [...stack, dir]));
    else if (tree.files.has(path)) objects.push(...manifestObjects(tree.files.get(path)!));
    else throw new UsageError(`${k.file}: resource ${r} was not read; nothing was changed`); // the command reads every reference
  }
  // kustomize's order (api/internal/target/kusttarget_configplugin.go): patchesStrategicMerge, patches, the name
  // prefix and suffix, then patchesJson6902.
  const by = (field: PatchRef['field']) => k.patches.filter((p) => p.field === field);
  for (const p of [...by('patchesStrategicMerge'), ...by('patches')]) objects = applyPatch(tree, k, p, objects);
  if (k.namePrefix !== '' || k.nameSuffix !== '') {
    objects = objects.map((o) => {
      const name = `${k.namePrefix}${o.name}${k.nameSuffix}`;
      return { ...o, name, names: [...o.names, name], value: { ...o.value, metadata: { ...(o.value.metadata as object), name } } };
    });
  }
  for (const p of by('patchesJson6902')) objects = applyPatch(tree, k, p, objects);
  return objects;
}

/** One kustomization patch entry: each of its documents applied to the objects it selects. */
function applyPatch(tree: SourceTree, k: Kustomization, ref: PatchRef, objects: BuiltObject[]): BuiltObject[] {
  const where = `${k.file} ${ref.field}[${ref.index}]`;
  const path = ref.path !== undefined ? posix.normalize(posix.join(k.dir, ref.path)) : inlinePatch(k, ref).path;
  const file = tree.files.get(path);
  if (file === undefined) throw new UsageError(`${where}: ${ref.path ?? 'the inline patch'} was not read; nothing was changed`);
  return file.docs.reduce((acc, doc, i) => {
    const value = docValue(doc);
    const patch: PatchDoc = { file: file.path, doc: i, where, value };
    const six902 = ref.field === 'patchesJson6902' || Array.isArray(value);
    return acc.map((o) => (selects(ref, value, o) ? (six902 ? json6902(o, patch) : strategicMerge(o, patch)) : o));
  }, objects);
}

function selects(ref: PatchRef, patch: unknown, o: BuiltObject): boolean {
  return ref.target !== undefined ? targets(ref.target, o) : !Array.isArray(patch) && namedBy(patch, o);
}

/** Two objects of one kind and name in one unit would be one object on the cluster: kustomize refuses them too. */
function requireUniqueNames(u: Unit): void {
  const seen = new Map<string, BuiltObject>();
  for (const o of u.objects) {
    const key = `${o.kind}/${o.name}`;
    const other = seen.get(key);
    if (other !== undefined) {
      throw new UsageError(`${u.label}: ${o.kind} ${o.name} is defined twice (${other.origin.file} and ${o.origin.file}); nothing was changed`, {
        hint: 'keep one definition per directory, or pin the two directories as separate kustomizations',
      });
    }
    seen.set(key, o);
  }
}
