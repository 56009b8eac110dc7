// Golden files of `pin` on the shapes GitOps repositories have: each changed file is compared whole with its golden
// copy (test/gitops/__golden__/<case>/), so every byte outside the changed nodes is checked to be as it was; files
// not listed are not changed at all. A second run on what the first wrote changes nothing (`--check` exits 0).
import { describe, expect, it } from 'vitest';
import { parseWindow } from '../../src/windows/flags.js';
import type { UpgradeWindow } from '../../src/windows/flags.js';
import { relative, runPin, written, type PinCase } from './golden.js';

const window = parseWindow('0 2 * * mon-thu/3h') as UpgradeWindow;

const CASES: Array<[string, PinCase, string[]]> = [
  ['plain manifests, pinned by id', { dir: 'plain', paths: ['.'] }, ['ec2nodeclass.yaml']],
  ['plain manifests, pinned by alias', { dir: 'plain', paths: ['ec2nodeclass.yaml', 'nodepool.yaml'], pin: 'alias' }, ['ec2nodeclass.yaml']],
  ['a multi-document file', { dir: 'multi-doc', paths: ['karpenter.yaml'] }, ['karpenter.yaml']],
  ['a kustomize base and two overlays, pinned by id', { dir: 'kustomize', paths: ['overlays'] }, ['overlays/prod/ec2nodeclass-ami.yaml', 'overlays/staging/ami-alias.yaml']],
  ['a kustomize base and two overlays, pinned by alias', { dir: 'kustomize', paths: ['.'], pin: 'alias' }, ['overlays/prod/ec2nodeclass-ami.yaml', 'overlays/staging/ami-alias.yaml']],
  ['inline patches in a kustomization, pinned by alias', { dir: 'kustomize-inline', paths: ['dev'], pin: 'alias' }, ['dev/kustomization.yaml']],
  ['inline patches in a kustomization, pinned by id', { dir: 'kustomize-inline', paths: ['dev'] }, ['dev/kustomization.yaml']],
  ['a Helm values map', { dir: 'helm', paths: ['values.yaml'], valuesPath: 'karpenter.nodeClass' }, ['values.yaml']],
  ['a Helm values list, pinned by alias', { dir: 'helm', paths: ['values-list.yaml'], valuesPath: 'nodeClass.amiSelectorTerms', pin: 'alias' }, ['values-list.yaml']],
  ['a Terraform variables file (JSON), pinned by id', { dir: 'helm', paths: ['karpenter.auto.tfvars.json'], valuesPath: 'karpenter_node_class' }, ['karpenter.auto.tfvars.json']],
  ['windows in plain NodePools', { dir: 'plain', paths: ['.'], windows: { windows: [window], exclusions: [] }, terms: false }, ['nodepool.yaml']],
  ['windows in a kustomize base', { dir: 'kustomize', paths: ['overlays'], windows: { windows: [window], exclusions: [] }, terms: false }, ['base/nodepool.yaml']],
];

describe('pin, golden files', () => {
  it.each(CASES)('%s', async (name, c, changed) => {
    const { result, tree, values } = runPin(c);
    expect(result.checks.filter((x) => x.level === 'error')).toEqual([]);
    expect(result.files.map((f) => relative(c, f.path)).sort()).toEqual(changed);
    for (const f of result.files) {
      await expect(f.after).toMatchFileSnapshot(`__golden__/${name.replace(/[^a-z0-9]+/gi, '-')}/${relative(c, f.path)}`);
    }
    // Idempotent: the second run, on what the first wrote, has nothing to change.
    const again = runPin(c, written(tree, result), values);
    expect(again.result.files).toEqual([]);
    expect(again.result.classes.filter((x) => x.changed)).toEqual([]);
  });
});

describe('pin, refused', () => {
  it('an id pin of an alias in a Helm values list: there is no amiFamily beside it to set (exit 2), nothing written', () => {
    expect(() => runPin({ dir: 'helm', paths: ['values-list.yaml'], valuesPath: 'nodeClass.amiSelectorTerms' })).toThrow(
      'test/fixtures/gitops/helm/in/values-list.yaml#nodeClass.amiSelectorTerms: ec2nodeclass/nodeClass.amiSelectorTerms: spec.amiFamily must become "AL2023", and --values-path nodeClass.amiSelectorTerms names the list of terms, so there is no amiFamily beside it to set; nothing was changed',
    );
  });
});
