// `pin`'s reading edge: the files and directories named → every file it deploys from, with the files kustomizations
// name followed wherever they are (`../../base`). Directories are walked for *.yaml and *.yml; a directory with a
// kustomization is built as kustomize builds it (its other files count only as it names them); a Helm chart's
// directory (Chart.yaml) offers only its values files; dot-directories and node_modules are passed over.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { UsageError } from '../errors.js';
import type { SourceTree } from '../gitops/build.js';
import { isValuesFile } from '../gitops/helm-values.js';
import { KUSTOMIZATION_FILES, kustomizationRefs, readKustomization } from '../gitops/kustomization.js';
import { parseYamlFile, type YamlFile } from '../gitops/yaml-file.js';

export interface ReadSources {
  tree: SourceTree;
  /** Files with no Kubernetes object (with --values-path: Helm values files). */
  values: string[];
}

const norm = (p: string) => posix.normalize(p.replace(/\\/g, '/'));

export function readSources(paths: readonly string[]): ReadSources {
  const tree: SourceTree = { files: new Map(), kustomizations: new Map(), roots: { kustomizations: [], manifests: [] } };
  const values: string[] = [];
  const named = (path: string, explicit: boolean) => {
    const file = readYaml(tree, path);
    if (isKustomizationFile(path)) addKustomization(tree, posix.dirname(path), path, true);
    else if (isValuesFile(file)) {
      if (explicit) values.push(path);
    } else tree.roots.manifests.push(path);
  };
  for (const raw of paths) {
    const path = norm(raw);
    if (!existsSync(path)) throw new UsageError(`${raw}: no such file or directory; nothing was changed`, { hint: 'name the manifests, kustomizations or values files to pin, or the directories that hold them' });
    if (statSync(path).isDirectory()) walk(tree, path, named);
    else named(path, true);
  }
  followReferences(tree);
  return { tree, values };
}

const isKustomizationFile = (path: string) => (KUSTOMIZATION_FILES as readonly string[]).includes(posix.basename(path));
const kustomizationIn = (dir: string) => KUSTOMIZATION_FILES.map((f) => posix.join(dir, f)).find((p) => existsSync(p));

function walk(tree: SourceTree, dir: string, named: (path: string, explicit: boolean) => void): void {
  const k = kustomizationIn(dir);
  if (k !== undefined) {
    readYaml(tree, k);
    addKustomization(tree, dir, k, true);
    return;
  }
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  const chart = entries.some((e) => e.name === 'Chart.yaml');
  for (const e of entries) {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('.') && e.name !== 'node_modules' && !chart) walk(tree, path, named);
    } else if (chart ? /^values[\w.-]*\.ya?ml$/.test(e.name) : /\.ya?ml$/.test(e.name)) {
      named(path, chart);
    }
  }
}

function addKustomization(tree: SourceTree, dir: string, file: string, root: boolean): void {
  if (!tree.kustomizations.has(dir)) tree.kustomizations.set(dir, file);
  if (root && !tree.roots.kustomizations.includes(dir)) tree.roots.kustomizations.push(dir);
}

/** Reads what every kustomization names, and what those name, until nothing new is named. */
function followReferences(tree: SourceTree): void {
  const done = new Set<string>();
  for (let pending = [...tree.kustomizations.keys()]; pending.length > 0; ) {
    const dir = pending.shift()!;
    if (done.has(dir)) continue;
    done.add(dir);
    const k = readKustomization(tree.files.get(tree.kustomizations.get(dir)!)!);
    for (const ref of kustomizationRefs(k)) {
      if (tree.files.has(ref) || tree.kustomizations.has(ref)) continue;
      if (!existsSync(ref)) throw new UsageError(`${k.file} names ${posix.relative(k.dir, ref)}, and there is no such file or directory (${ref}); nothing was changed`);
      if (statSync(ref).isDirectory()) {
        const file = kustomizationIn(ref);
        if (file === undefined) throw new UsageError(`${k.file} names the directory ${ref}, which has no kustomization.yaml; nothing was changed`, { hint: 'kustomize builds a directory only through its kustomization.yaml' });
        readYaml(tree, file);
        addKustomization(tree, ref, file, false);
        pending.push(ref);
      } else readYaml(tree, ref);
    }
  }
}

function readYaml(tree: SourceTree, path: string): YamlFile {
  const known = tree.files.get(path);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; nothing was changed`, { cause: err });
  }
  const parsed = parseYamlFile(path, text);
  if ('error' in parsed) throw new UsageError(`${parsed.error}; nothing was changed`, { hint: 'name only YAML (or JSON) files, or directories of them' });
  tree.files.set(path, parsed);
  return parsed;
}
