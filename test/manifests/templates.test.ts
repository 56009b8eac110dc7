import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { BUNDLED_TEMPLATES_DIR, TEMPLATE_FILES, readTemplates } from '../../src/manifests/templates.js';

const repoTemplates = fileURLToPath(new URL('../../templates/', import.meta.url));

/** A templates directory holding copies of the bundled files, with `files` overriding some of them. */
async function templatesDir(files: Record<string, string | null> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-templates-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const name of Object.values(TEMPLATE_FILES)) await copyFile(join(repoTemplates, name), join(dir, name));
  for (const [name, text] of Object.entries(files)) {
    if (text == null) await rm(join(dir, name));
    else await writeFile(join(dir, name), text);
  }
  return dir;
}

const bundledNodePool = await readFile(join(repoTemplates, TEMPLATE_FILES.nodePool), 'utf8');
const bundledNodeClass = await readFile(join(repoTemplates, TEMPLATE_FILES.nodeClass), 'utf8');

async function failure(dir: string): Promise<UsageError> {
  const err: unknown = await readTemplates(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('readTemplates: the bundled templates', () => {
  it('are found next to src/ (and dist/) through import.meta.url', () => {
    expect(BUNDLED_TEMPLATES_DIR).toBe(repoTemplates);
  });

  it('hold the blueprint-equivalent EC2NodeClass and NodePool', async () => {
    const t = await readTemplates();
    expect(t.files).toEqual({ nodeClass: join(repoTemplates, 'ec2nodeclass.yaml'), nodePool: join(repoTemplates, 'nodepool.yaml') });
    expect(t.nodeClass.spec).toEqual({
      role: 'KarpenterNodeRole-${CLUSTER_NAME}',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '${CLUSTER_NAME}' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '${CLUSTER_NAME}' } }],
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
    });
    expect(t.nodePool.spec.template.spec.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    expect(t.nodePool.spec.template.spec.requirements[0]).toEqual({ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] });
    // No hashed extras (the blueprint's tags.KubernetesVersion defect, DOMAIN.md §5.1).
    expect(Object.keys(t.nodeClass.spec)).not.toContain('tags');
    expect(Object.keys(t.nodePool.spec.template)).toEqual(['spec']);
  });
});

describe('readTemplates: a --templates directory', () => {
  it("reads the user's two files, including a leading comment and document marker", async () => {
    const dir = await templatesDir({ 'nodepool.yaml': `# upstream examples start like this\n---\n${bundledNodePool}` });
    const t = await readTemplates(dir);
    expect(t.files.nodePool).toBe(join(dir, 'nodepool.yaml'));
    expect(t.nodePool.kind).toBe('NodePool');
  });

  it.each([
    ['a directory that does not exist', () => Promise.resolve('/nonexistent/karp-drift-templates'), '--templates /nonexistent/karp-drift-templates: no such directory'],
    [
      'a file instead of a directory',
      async () => join(await templatesDir(), 'nodepool.yaml'),
      (dir: string) => `--templates ${dir} is a file, not a directory`,
    ],
  ] as const)('refuses %s', async (_name, make, message) => {
    const dir = await make();
    const err = await failure(dir);
    expect(err.message).toBe(typeof message === 'string' ? message : message(dir));
    expect(err.hint).toContain('a templates directory holds exactly two files, ec2nodeclass.yaml (one EC2NodeClass) and nodepool.yaml (one NodePool)');
  });

  it('names a missing file and points at the bundled templates to copy', async () => {
    const dir = await templatesDir({ 'nodepool.yaml': null });
    const err = await failure(dir);
    expect(err.message).toBe(`template ${join(dir, 'nodepool.yaml')} not found`);
    expect(err.hint).toContain(`start from a copy of ${repoTemplates}`);
  });

  const nodeClassV1beta1 = bundledNodeClass.replace('karpenter.k8s.aws/v1', 'karpenter.k8s.aws/v1beta1');
  it.each([
    ['a YAML syntax error, with its line and column', 'nodepool.yaml', 'apiVersion: karpenter.sh/v1\nkind: NodePool\n  metadata: {}\n', ':3:11: YAML syntax error: bad indentation of a mapping entry'],
    ['two documents in one file', 'nodepool.yaml', `${bundledNodePool}---\n${bundledNodeClass}`, ' holds 2 YAML documents; expected exactly one NodePool'],
    ['an empty file', 'ec2nodeclass.yaml', '# nothing here\n', ' holds 0 YAML documents; expected exactly one EC2NodeClass'],
    ['a scalar document', 'ec2nodeclass.yaml', 'hello\n', ' is not a Kubernetes object; expected one EC2NodeClass (karpenter.k8s.aws/v1)'],
    ['the files swapped', 'nodepool.yaml', bundledNodeClass, ' holds an EC2NodeClass (karpenter.k8s.aws/v1); expected NodePool (karpenter.sh/v1)'],
    ['the pre-v1 API', 'ec2nodeclass.yaml', nodeClassV1beta1, ' holds an EC2NodeClass (karpenter.k8s.aws/v1beta1); expected EC2NodeClass (karpenter.k8s.aws/v1)'],
    [
      'a NodePool that points at another kind of node class',
      'nodepool.yaml',
      bundledNodePool.replace('kind: EC2NodeClass', 'kind: NodeClass'),
      ' is not a valid NodePool: spec.template.spec.nodeClassRef.kind: must be EC2NodeClass: render pins AMIs in an EC2NodeClass',
    ],
    [
      'an EC2NodeClass without subnet selectors',
      'ec2nodeclass.yaml',
      bundledNodeClass.replace(/ {2}subnetSelectorTerms:\n.*\n.*\n/, ''),
      ' is not a valid EC2NodeClass: spec.subnetSelectorTerms: is required',
    ],
  ])('refuses %s, naming the file', async (_name, file, text, message) => {
    const dir = await templatesDir({ [file]: text });
    const err = await failure(dir);
    expect(err.message).toBe(`${join(dir, file)}${message}`);
  });

  it('hints at the v1 migration for a v1beta1 template', async () => {
    const err = await failure(await templatesDir({ 'ec2nodeclass.yaml': nodeClassV1beta1 }));
    expect(err.hint).toBe("karpenter.k8s.aws/v1beta1 is Karpenter's pre-v1 API; convert the template to v1 (Karpenter docs: upgrading/v1-migration)");
  });

  it('ignores other files and directories next to the two templates', async () => {
    const dir = await templatesDir({ 'README.md': '# notes\n' });
    await mkdir(join(dir, 'old'));
    await expect(readTemplates(dir)).resolves.toMatchObject({ nodeClass: { kind: 'EC2NodeClass' }, nodePool: { kind: 'NodePool' } });
  });
});
