// --release latest~N and --min-age as a user meets them: the built CLI against the sandbox (scenario `staged`: an
// AL2023 class and a Bottlerocket class on 1.29, control plane 1.30). The CLI's clock is the real one, and every
// release of the sandbox's catalog (dated up to 2026-11-01) is weeks old: --min-age 7d takes the newest, and an age no
// release has is refused.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';
import { seriesReleases } from '../../src/sandbox/aws/lookup.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

const releases = (sandbox: Sandbox, family: 'al2023' | 'bottlerocket') =>
  seriesReleases(sandbox.aws.catalog, { family, kubernetesVersion: '1.30', arch: 'amd64', variant: 'standard' });

describe('release policy through the CLI', () => {
  it('plan --release latest~1: one release behind per family, in the plan text and in plan -o json', async () => {
    const sandbox = await scenario('staged');
    const [al2023, newestAl2023] = releases(sandbox, 'al2023').slice(-2);
    const [bottlerocket, newestBottlerocket] = releases(sandbox, 'bottlerocket').slice(-2);

    const text = await karpDrift(sandbox, ['plan', '--to', '1.30', '--release', 'latest~1']);
    expect(text.code, text.stderr).toBe(0);
    const head = text.stdout.split('\n').slice(0, 3);
    expect(head[0]).toBe('Kubernetes 1.30 (control plane 1.30), release latest~1, pinned by id');
    expect(head[1]).toMatch(new RegExp(`^  al2023 ${al2023!.release} \\(published \\S+; newest ${newestAl2023!.release}\\)$`));
    expect(head[2]).toMatch(new RegExp(`^  bottlerocket ${bottlerocket!.release.replaceAll('.', '\\.')} \\(published \\S+; newest ${newestBottlerocket!.release.replaceAll('.', '\\.')}\\)$`));

    const json = await karpDrift(sandbox, ['plan', '--to', '1.30', '--release', 'latest~1', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as {
      release: string;
      source: { kind: string; policy: { release: string; minAge: null; families: Array<{ family: string; release: string }> } };
      nodeClasses: Array<{ family: string; targets: Array<{ release: string }> }>;
    };
    expect(plan.release).toBe('latest~1');
    expect(plan.source.policy.families.map((f) => [f.family, f.release]).sort()).toEqual([
      ['al2023', al2023!.release],
      ['bottlerocket', bottlerocket!.release],
    ]);
    for (const c of plan.nodeClasses) {
      const want = c.family === 'al2023' ? al2023!.release : bottlerocket!.release;
      expect(c.targets.map((t) => t.release)).toEqual(c.targets.map(() => want));
    }
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('upgrade --release latest~1 --min-age 7d: rolled out, recorded in the resolved event and the summary file', async () => {
    const sandbox = await scenario('staged');
    const [chosen, newest] = releases(sandbox, 'bottlerocket').slice(-2);
    const file = join(mkdtempSync(join(tmpdir(), 'karp-drift-policy-')), 'summary.md');
    const run = await karpDrift(sandbox, [
      'upgrade', '--to', '1.30', '--nodeclass', 'bottlerocket', '--release', 'latest~1', '--min-age', '7d',
      '--yes', '-o', 'json', '--summary-file', file,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const resolved = run.events.find((e) => e.type === 'resolved') as unknown as {
      source: { policy: { release: string; minAge: string; families: Array<{ release: string; newest: { release: string } }> } };
      amis: Array<{ release: string }>;
    };
    expect(resolved.source.policy).toMatchObject({
      release: 'latest~1',
      minAge: '7d',
      families: [{ family: 'bottlerocket', release: chosen!.release, newest: { release: newest!.release } }],
    });
    expect(new Set(resolved.amis.map((a) => a.release))).toEqual(new Set([chosen!.release]));
    const md = readFileSync(file, 'utf8');
    expect(md).toContain('Kubernetes 1.30 (control plane 1.30), release latest~1 --min-age 7d, pinned by id');
    expect(md).toMatch(new RegExp(`\\n- bottlerocket ${chosen!.release.replaceAll('.', '\\.')} \\(published \\S+; newest ${newest!.release.replaceAll('.', '\\.')}\\)\\n`));
  });

  it('upgrade --templates --release latest~1: the summary file records the policy (text output, no plan document)', async () => {
    const sandbox = await scenario('default');
    const [chosen, newest] = releases(sandbox, 'al2023').slice(-2);
    const file = join(mkdtempSync(join(tmpdir(), 'karp-drift-policy-')), 'summary.md');
    const run = await karpDrift(sandbox, [
      'upgrade', '--to', '1.30', '--release', 'latest~1', '--yes', '--no-wait', '--allow-create',
      '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox', '--summary-file', file,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const md = readFileSync(file, 'utf8');
    expect(md).toContain(`\n#### AMIs\n\nrelease latest~1\n\n- al2023 ${chosen!.release} (published `);
    expect(md).toContain(`; newest ${newest!.release})\n`);
  });

  it('promotion pins exactly what the policy chose where it was tested, and says so; the policy flags are refused with it', async () => {
    const sandbox = await scenario('staged');
    const chosen = releases(sandbox, 'al2023').at(-2)!;
    const tested = await karpDrift(sandbox, ['amis', '--to', '1.30', '--release', 'latest~1', '-o', 'json']);
    expect(tested.code, tested.stderr).toBe(0);
    const file = join(mkdtempSync(join(tmpdir(), 'karp-drift-policy-')), 'amis.json');
    writeFileSync(file, tested.stdout);

    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30', '--nodeclass', 'default', '--amis-file', file]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n')[0]).toBe(
      `Kubernetes 1.30 (control plane 1.30), AMIs promoted from ${file} (release ${chosen.release}, chosen there by --release latest~1), verified by ID in us-west-2, pinned by id`,
    );
    expect(plan.stdout).toContain(`amazon-eks-node-al2023-x86_64-standard-1.30-${chosen.release}`);

    const refused = await karpDrift(sandbox, ['plan', '--to', '1.30', '--amis-file', file, '--min-age', '7d']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: --min-age 7d cannot go with --amis-file: the file records the releases to pin\n  next: drop --min-age to pin what ${file} records (apply the policy where the file is written: amis --min-age 7d -o json)\n`,
    );
  });

  it('an age no release has: exit 2 naming the family, the newest and its age; nothing is changed', async () => {
    const sandbox = await scenario('staged');
    const newest = releases(sandbox, 'al2023').at(-1)!;
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--nodeclass', 'default', '--min-age', '100000d', '--yes']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`error: --min-age 100000d: no al2023 release for Kubernetes 1\\.30 is 100000d old yet: the newest, ${newest.release}, was published \\S+ \\(\\d+d old\\)`),
    );
    expect(run.stderr).toMatch(/\n {2}next: wait, or pass a shorter --min-age \(v\d{8} is \S+ old\), or name a release outright: --release v\d{8}\n/);
    expect(httpWrites(sandbox)).toBe(0);
  });
});
