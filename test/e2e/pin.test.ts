// `karp-drift pin` through the built CLI, on a copy of the kustomize fixture, with the sandbox as the cluster its
// checks read and as SSM and EC2: --check exits 1 and writes nothing, the run writes the sandbox's AMIs where each
// overlay decides its terms, the second --check exits 0, a target newer than the control plane is refused (exit 3),
// bad input is exit 2; the cluster is only read.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const FILES = ['overlays/prod/ec2nodeclass-ami.yaml', 'overlays/staging/ami-alias.yaml', 'base/ec2nodeclass.yaml', 'base/nodepool.yaml'];

function copy(): { dir: string; read: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'karp-drift-pin-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(new URL('../fixtures/gitops/kustomize/in', import.meta.url).pathname, dir, { recursive: true });
  return { dir, read: () => FILES.map((f) => readFileSync(join(dir, f), 'utf8')) };
}

describe('karp-drift pin', () => {
  it('checks, writes where each overlay decides, is idempotent, refuses what plan refuses, and never writes to the cluster', async () => {
    const sandbox = await scenario('default');
    const { dir, read } = copy();
    const overlays = join(dir, 'overlays');
    const before = read();

    const check = await karpDrift(sandbox, ['pin', '--to', '1.30', '--check', overlays]);
    expect(check.code, check.stderr).toBe(1);
    expect(check.stdout).toMatch(/^Checked against cluster karp-drift-sandbox-default \(https:\/\/127\.0\.0\.1:\d+, Kubernetes v1\.30\.4-eks-a737599\)$/m);
    expect(check.stdout).toContain(`--- a/${overlays.replace(/^\//, '')}/prod/ec2nodeclass-ami.yaml`);
    expect(check.stderr).toContain('error: 2 files would change (--check): they do not pin what the policy picks now');
    expect(read()).toEqual(before);

    const amis = await karpDrift(sandbox, ['amis', '--to', '1.30', '-o', 'json']);
    const ids = (JSON.parse(amis.stdout) as { amis: Array<{ arch: string; id: string }> }).amis.map((a) => a.id);
    const prBody = join(dir, 'pr.md');
    const tfvars = join(dir, 'karpenter.auto.tfvars.json');
    const run = await karpDrift(sandbox, ['pin', '--to', '1.30', '--pr-body', prBody, '--tfvars', tfvars, overlays]);
    expect(run.code, run.stderr).toBe(0);
    const [prod, staging, baseClass, basePool] = read();
    expect(prod).toBe(before[0]!.replace('ami-0aaaaaaaaaaaaaaa1', ids[0]!).replace('ami-0bbbbbbbbbbbbbbb2', ids[1]!));
    expect(staging).toContain(`  path: /spec/amiSelectorTerms\n  value:\n    - id: ${ids[0]}\n    - id: ${ids[1]}\n- op: add\n  path: /spec/amiFamily\n  value: AL2023\n`);
    expect([baseClass, basePool]).toEqual(before.slice(2));
    expect(readFileSync(prBody, 'utf8')).toContain('## Pin EKS-optimized AMIs for Kubernetes 1.30');
    expect(JSON.parse(readFileSync(tfvars, 'utf8'))).toMatchObject({ karpenter_ami_pins: { [`${overlays}/prod/default`]: { amiFamily: 'AL2023' } } });

    const again = await karpDrift(sandbox, ['pin', '--to', '1.30', '--check', overlays, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, blocked: false, files: [] });

    const newer = await karpDrift(sandbox, ['pin', '--to', '1.31', overlays]);
    expect(newer.code).toBe(3);
    expect(newer.stdout).toContain('TARGET-NEWER-THAN-CONTROL-PLANE');
    expect(newer.stderr).toContain('error: the plan has error-level check(s): TARGET-NEWER-THAN-CONTROL-PLANE; no file was changed');
    const offline = await karpDrift(sandbox, ['pin', '--to', '1.31', '--no-cluster', '--check', overlays]);
    expect(offline.code, offline.stderr).toBe(1);
    expect(offline.stdout).toContain('No cluster read (--no-cluster): TARGET-NEWER-THAN-CONTROL-PLANE, TARGET-TOO-OLD, ALIAS-FOLLOWS-CONTROL-PLANE, DOWNGRADE, VERSION-SKEW were not checked');
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('bad input is exit 2 and changes nothing', async () => {
    const sandbox = await scenario('default');
    const { dir, read } = copy();
    const before = read();
    writeFileSync(join(dir, 'broken.yaml'), 'spec: [unclosed\n');
    writeFileSync(join(dir, 'values.yaml'), 'karpenter:\n  nodeClass: {amiSelectorTerms: [{alias: al2023@v20240807}]}\n');
    const runs = await Promise.all([
      karpDrift(sandbox, ['pin', '--to', '1.30', join(dir, 'broken.yaml')]),
      karpDrift(sandbox, ['pin', '--to', '1.30', '--values-path', 'karpenter.nodeclass', join(dir, 'values.yaml')]),
      karpDrift(sandbox, ['pin', '--to', '1.30', join(dir, 'values.yaml')]),
      karpDrift(sandbox, ['pin', '--to', '1.30', join(dir, 'nope')]),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0].stderr).toContain(`error: ${join(dir, 'broken.yaml')} is not YAML: `);
    expect(runs[1].stderr).toContain(`error: --values-path karpenter.nodeclass does not exist in ${join(dir, 'values.yaml')}: karpenter has the keys nodeClass; nothing was changed`);
    expect(runs[2].stderr).toContain('a Helm values file needs --values-path');
    expect(runs[3].stderr).toContain('no such file or directory');
    expect(read()).toEqual(before);
  });
});
