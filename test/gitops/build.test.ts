// What the files deploy and which file decides each field, and the shapes pin refuses: in-memory trees, exact
// messages (what, where, what next).
import { describe, expect, it } from 'vitest';
import { buildUnits, type SourceTree } from '../../src/gitops/build.js';
import { valuesUnit } from '../../src/gitops/helm-values.js';
import { fileChanges, type Write } from '../../src/gitops/writes.js';
import { parseYamlFile, type YamlFile } from '../../src/gitops/yaml-file.js';

function tree(files: Record<string, string>, roots: { kustomizations?: string[]; manifests?: string[] }): SourceTree {
  const parsed = new Map<string, YamlFile>();
  const kustomizations = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) {
    const f = parseYamlFile(path, text);
    if ('error' in f) throw new Error(f.error);
    parsed.set(path, f);
    if (path.endsWith('/kustomization.yaml')) kustomizations.set(path.slice(0, -'/kustomization.yaml'.length), path);
  }
  return { files: parsed, kustomizations, roots: { kustomizations: roots.kustomizations ?? [], manifests: roots.manifests ?? [] } };
}

const CLASS = 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n  amiSelectorTerms:\n  - alias: al2023@v1\n';
const base = { 'base/kustomization.yaml': 'resources: [class.yaml]\n', 'base/class.yaml': CLASS };
const overlay = (extra: string) => ({ ...base, 'o/kustomization.yaml': `resources: [../base]\n${extra}` });

describe('which file decides the terms', () => {
  it.each<[string, Record<string, string>, unknown]>([
    ['the base, when no patch sets them', overlay(''), { kind: 'node', at: { file: 'base/class.yaml', doc: 0, path: ['spec', 'amiSelectorTerms'] } }],
    [
      'a strategic-merge patch that sets them (patchesStrategicMerge)',
      { ...overlay('patchesStrategicMerge: [p.yaml]\n'), 'o/p.yaml': CLASS.replace('al2023@v1', 'al2023@v2') },
      { kind: 'node', at: { file: 'o/p.yaml', doc: 0, path: ['spec', 'amiSelectorTerms'] } },
    ],
    [
      'not a patch that sets only other fields',
      { ...overlay('patches:\n- path: p.yaml\n'), 'o/p.yaml': 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec: {role: R}\n' },
      { kind: 'node', at: { file: 'base/class.yaml', doc: 0, path: ['spec', 'amiSelectorTerms'] } },
    ],
    [
      'a JSON 6902 operation on the list: patchesJson6902 after the name prefix (it targets the new name)',
      { ...overlay('namePrefix: prod-\npatchesJson6902:\n- path: p.yaml\n  target: {kind: EC2NodeClass, name: prod-def.*}\n'), 'o/p.yaml': '- {op: replace, path: /spec/amiSelectorTerms, value: [{alias: al2023@v2}]}\n' },
      { kind: 'node', at: { file: 'o/p.yaml', doc: 0, path: [0, 'value'] } },
    ],
    [
      'a JSON 6902 operation on a part of it',
      { ...overlay('patchesJson6902:\n- target: {group: karpenter.k8s.aws, version: v1, kind: EC2NodeClass, name: default}\n  path: p.yaml\n'), 'o/p.yaml': '- {op: replace, path: /spec/amiSelectorTerms/0/alias, value: al2023@v2}\n' },
      { kind: 'op', file: 'o/p.yaml', doc: 0, op: 0, field: ['spec', 'amiSelectorTerms'] },
    ],
    [
      'an inline patch, a file of its own hosted in the kustomization',
      overlay('patches:\n- patch: |-\n    - op: replace\n      path: /spec/amiSelectorTerms/0/alias\n      value: x\n  target: {kind: EC2NodeClass}\n'),
      { kind: 'op', file: 'o/kustomization.yaml#patches[0]', doc: 0, op: 0, field: ['spec', 'amiSelectorTerms'] },
    ],
  ])('%s', (_name, files, decider) => {
    const [unit] = buildUnits(tree(files, { kustomizations: ['o'] })).units;
    expect(unit!.objects[0]!.deciders.amiSelectorTerms).toEqual(decider);
  });

  it('the base is not a unit of its own when an overlay includes it; a patch with no object of its kind selects none', () => {
    const { units } = buildUnits(tree(overlay(''), { kustomizations: ['base', 'o'] }));
    expect(units.map((u) => u.label)).toEqual(['o']);
  });
});

describe('refused, naming the file and what to do', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ['a remote resource', { ...base, 'o/kustomization.yaml': 'resources: [github.com/acme/karpenter//base]\n' }, /^o\/kustomization\.yaml: resource github\.com\/acme\/karpenter\/\/base is remote; nothing was changed$/],
    ['components', overlay('components: [../c]\n'), /^o\/kustomization\.yaml: components is not supported; nothing was changed$/],
    ['a label selector', overlay('patches:\n- path: p.yaml\n  target: {labelSelector: a=b}\n'), /^o\/kustomization\.yaml: patches\[0\]\.target\.labelSelector is not supported; nothing was changed$/],
    [
      'a strategic-merge directive',
      { ...overlay('patches: [{path: p.yaml}]\n'), 'o/p.yaml': CLASS.replace('spec:', 'spec:\n  $patch: replace') },
      /strategic-merge directives \(\$patch, \$setElementOrder\) are not supported on EC2NodeClass default/,
    ],
    [
      'an operation that removes the terms',
      { ...overlay('patches: [{path: p.yaml, target: {kind: EC2NodeClass}}]\n'), 'o/p.yaml': '- {op: remove, path: /spec/amiSelectorTerms}\n' },
      /^o\/kustomization\.yaml patches\[0\] \(o\/p\.yaml\) deletes spec\.amiSelectorTerms of EC2NodeClass default: pin cannot tell what should set it; nothing was changed$/,
    ],
    ['two definitions of one class in a unit', { 'm/a.yaml': CLASS, 'm/b.yaml': CLASS }, /^m: EC2NodeClass default is defined twice \(m\/a\.yaml and m\/b\.yaml\)/],
  ])('%s', (_name, files, message) => {
    const roots = Object.keys(files).some((f) => f.startsWith('o/')) ? { kustomizations: ['o'] } : { manifests: Object.keys(files) };
    expect(() => buildUnits(tree(files, roots))).toThrow(message);
  });

  it('a --values-path that is not there says what is', () => {
    const f = parseYamlFile('values.yaml', 'karpenter:\n  nodeClass: {role: R}\n  nodePool: {}\n') as YamlFile;
    expect(() => valuesUnit(f, ['karpenter', 'nodeclass'], 'karpenter.nodeclass')).toThrow(
      '--values-path karpenter.nodeclass does not exist in values.yaml: karpenter has the keys nodeClass, nodePool; nothing was changed',
    );
  });

  it('two overlays that need different terms from one base write nothing', () => {
    const t = tree(overlay(''), { kustomizations: ['o'] });
    const [unit] = buildUnits(t).units;
    const decider = unit!.objects[0]!.deciders.amiSelectorTerms!;
    const write = (by: string, alias: string): Write => ({ field: 'amiSelectorTerms', decider, value: [{ alias }], changed: true, current: [], by });
    expect(() => fileChanges(t.files, [write('o1: ec2nodeclass/default', 'al2023@v2'), write('o2: ec2nodeclass/default', 'bottlerocket@v1.2.3')])).toThrow(
      'base/class.yaml decides spec.amiSelectorTerms of both o1: ec2nodeclass/default and o2: ec2nodeclass/default, which need different values ([{"alias":"al2023@v2"}] and [{"alias":"bottlerocket@v1.2.3"}]); nothing was changed',
    );
    expect(fileChanges(t.files, [write('o1: ec2nodeclass/default', 'al2023@v2'), write('o2: ec2nodeclass/default', 'al2023@v2')]).map((f) => f.after)).toEqual([CLASS.replace('al2023@v1', 'al2023@v2')]);
  });

  it('a file with CRLF line ends gets CRLF in what is written', () => {
    const t = tree({ 'm/c.yaml': CLASS.replace(/\n/g, '\r\n') }, { manifests: ['m/c.yaml'] });
    const [unit] = buildUnits(t).units;
    const write: Write = { field: 'amiSelectorTerms', decider: unit!.objects[0]!.deciders.amiSelectorTerms!, value: [{ id: 'ami-1' }, { id: 'ami-2' }], changed: true, current: [], by: 'm: ec2nodeclass/default' };
    expect(fileChanges(t.files, [write]).map((f) => f.after)).toEqual([CLASS.replace('- alias: al2023@v1', '- id: ami-1\n  - id: ami-2').replace(/\n/g, '\r\n')]);
  });
});
