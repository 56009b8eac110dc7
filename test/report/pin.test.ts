// `pin`'s outputs for one scenario (a kustomize base with two overlays, pinned by id, no cluster): the terminal's text,
// `-o json`, the pull request's Markdown and the Terraform variables, as golden files; and the unified diff read back by
// git itself (`git apply`), a second client nobody here wrote.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lineDiff } from '../../src/gitops/line-diff.js';
import { pinJson, pinTfvars, pinText, unifiedDiff, type PinReport } from '../../src/report/pin.js';
import { pinMarkdown, releaseNotesUrl } from '../../src/report/pin-markdown.js';
import { FIXTURES, relative, runPin, type PinCase } from '../gitops/golden.js';

const CASE: PinCase = { dir: 'kustomize', paths: ['overlays'] };

function report(check = false): PinReport {
  const { result } = runPin(CASE);
  return { result, to: '1.31', pin: 'id', release: 'latest', source: { kind: 'ssm', region: 'us-west-2' }, noCluster: 'no kubeconfig context', check };
}

describe('pin output', () => {
  it('the terminal, -o json, the pull request body and the tfvars', async () => {
    const r = report();
    await expect(pinText(r, { color: false })).toMatchFileSnapshot('__golden__/pin.txt');
    await expect(pinJson(r)).toMatchFileSnapshot('__golden__/pin.json');
    await expect(pinMarkdown(r)).toMatchFileSnapshot('__golden__/pin-pr-body.md');
    await expect(pinTfvars(r, 'karpenter_ami_pins')).toMatchFileSnapshot('__golden__/pin.auto.tfvars.json');
  });

  it('--check says the files would change; nothing to change says so', () => {
    expect(pinText(report(true), { color: false }).trimEnd().split('\n').at(-1)).toBe('2 files would change (--check): they do not pin what the policy picks now.');
    const none = { ...report(), result: { ...report().result, files: [] } };
    expect(pinText(none, { color: false }).trimEnd().split('\n').at(-1)).toBe('No changes: the files already pin what the policy picks now.');
  });

  it('git apply reads the diff and gets the files pin wrote', () => {
    const r = report();
    const dir = mkdtempSync(join(tmpdir(), 'pin-diff-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(join(FIXTURES, CASE.dir, 'in'), dir, { recursive: true });
    const diff = unifiedDiff(r.result.files.map((f) => ({ ...f, path: relative(CASE, f.path) })));
    writeFileSync(join(dir, 'pin.diff'), diff);
    const git = spawnSync('git', ['apply', '--unidiff-zero', '--verbose', 'pin.diff'], { cwd: dir, encoding: 'utf8' });
    expect(git.stderr).not.toMatch(/error/);
    expect(git.status).toBe(0);
    for (const f of r.result.files) expect(readFileSync(join(dir, relative(CASE, f.path)), 'utf8')).toBe(f.after);
  });
});

describe('unified diff hunks', () => {
  it.each<[string, string, string, string]>([
    ['one line in the middle, three lines of context', 'a\nb\nc\nd\ne\nf\ng\n', 'a\nb\nc\nD\ne\nf\ng\n', '@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n'],
    ['changes far apart: two hunks', '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n', 'x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n', '@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+y\n'],
    ['a line added at the end of a file without a final newline', 'a', 'a\nb', '@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n'],
  ])('%s', (_name, before, after, hunks) => {
    expect(lineDiff(before, after).length).toBeGreaterThan(0);
    expect(unifiedDiff([{ path: 'f', before, after }]).split('\n').slice(2).join('\n')).toBe(hunks);
  });
});

describe('unified diff headers', () => {
  it.each([
    ['a path relative to the working directory', 'manifests/class.yaml', 'manifests/class.yaml'],
    ['an absolute path, as git diff --no-index writes it', '/tmp/m/class.yaml', 'tmp/m/class.yaml'],
  ])('%s', (_name, path, shown) => {
    expect(unifiedDiff([{ path, before: 'a\n', after: 'b\n' }]).split('\n').slice(0, 2)).toEqual([`--- a/${shown}`, `+++ b/${shown}`]);
  });
});

describe('release notes', () => {
  it.each<[Parameters<typeof releaseNotesUrl>[0], string, string]>([
    ['al2023', 'v20241109', 'https://github.com/awslabs/amazon-eks-ami/releases/tag/v20241109'],
    ['al2', 'v20241109', 'https://github.com/awslabs/amazon-eks-ami/releases/tag/v20241109'],
    ['bottlerocket', '1.26.1', 'https://github.com/bottlerocket-os/bottlerocket/releases/tag/v1.26.1'],
    ['windows2022', '2024.09.10', 'https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-versions-windows.html'],
  ])('%s %s', (family, release, url) => {
    expect(releaseNotesUrl(family, release)).toBe(url);
  });
});
