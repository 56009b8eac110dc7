// The directory a GitOps tool syncs from, as the sandbox's stand-in reads it: every YAML and JSON file under it (hidden
// ones and `.git` left out, as Argo CD's directory source and Flux's generated kustomization leave them), each document
// one object. What Git would call a commit is the directory's content: its revision is the SHA-1 of the files read.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dump, loadAll } from 'js-yaml';
import type { KubeObject } from '../kube-api/types.js';

export interface ManifestDir {
  /** The files read, by path relative to the directory, sorted. */
  files: Array<{ path: string; text: string }>;
  objects: Array<{ file: string; object: KubeObject }>;
  /** What cannot be synced, `<file>: <what>`; a directory with any is not applied at all (Argo CD and Flux apply nothing of a build that fails). */
  problems: string[];
}

const MANIFEST = /\.(ya?ml|json)$/;
// Plain manifests only: the sandbox does not run kustomize (pin's gitops/ room reads kustomizations; this is the
// other side of the wire and shares nothing with it).
const KUSTOMIZATION = /^(kustomization\.ya?ml|Kustomization)$/;

export function readManifestDir(dir: string): ManifestDir {
  const files: ManifestDir['files'] = [];
  const problems: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (KUSTOMIZATION.test(entry.name))
        problems.push(`${relative(dir, path)}: a kustomization, which the sandbox does not build: keep plain manifests in ${dir}`);
      else if (MANIFEST.test(entry.name)) files.push({ path: relative(dir, path), text: readFileSync(path, 'utf8') });
    }
  };
  walk(dir);
  const objects: ManifestDir['objects'] = [];
  for (const file of files) {
    let documents: unknown[];
    try {
      documents = loadAll(file.text);
    } catch (err) {
      problems.push(`${file.path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    documents.forEach((doc, i) => {
      if (doc == null) return;
      const o = doc as Partial<KubeObject>;
      if (typeof o !== 'object' || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string')
        problems.push(`${file.path}: document ${i + 1} is not a Kubernetes object (apiVersion, kind and metadata.name)`);
      else objects.push({ file: file.path, object: o as KubeObject });
    });
  }
  return { files, objects, problems };
}

/** The SHA-1 of the files' paths and contents: a revision that changes exactly when what would be synced does. */
export function revisionOf(files: ManifestDir['files']): string {
  const hash = createHash('sha1');
  for (const f of files) hash.update(`${f.path}\0${f.text}\0`);
  return hash.digest('hex');
}

/** Whether the directory holds nothing to sync yet (absent, or no manifest in it): the sandbox may seed it. */
export function isEmptyManifestDir(dir: string): boolean {
  try {
    if (!statSync(dir).isDirectory()) return false;
  } catch {
    return true;
  }
  return readManifestDir(dir).files.length === 0;
}

/** One file per object, `<kind>-<name>.yaml`, as a person keeps them in Git. */
export function writeManifestDir(dir: string, manifests: readonly KubeObject[]): void {
  mkdirSync(dir, { recursive: true });
  for (const m of manifests) {
    const { apiVersion, kind, metadata, ...rest } = m;
    const text = dump({ apiVersion, kind, metadata, ...rest }, { lineWidth: -1, noRefs: true });
    writeFileSync(join(dir, `${kind.toLowerCase()}-${metadata.name ?? ''}.yaml`), text);
  }
}
