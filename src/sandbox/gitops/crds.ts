// The CRDs of the GitOps tool the sandbox stands in for, read from the vendored copies (vendor/argo-cd, vendor/flux:
// see their README.md) at the package root: Argo CD's Application, Flux's Kustomization and GitRepository.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { packagePath } from '../../package-root.js';
import type { CustomResourceDefinition } from '../kube-api/crds.js';
import type { GitOpsTool } from '../scenarios/field-managers.js';

export function gitopsCrds(tool: GitOpsTool): CustomResourceDefinition[] {
  const dir = packagePath('vendor', tool === 'argocd' ? 'argo-cd' : 'flux', 'crds');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => load(readFileSync(join(dir, file), 'utf8')) as CustomResourceDefinition);
}
