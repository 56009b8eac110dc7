// First contact, round four (issue 38): what a new user still tripped on, each through the built CLI against a sandbox.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';
import { follow, STAGED } from './staged.js';
import { inTerminal, pty } from './terminal.js';

let sandbox: Sandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ scenario: 'default', speed: 60 });
  dir = await mkdtemp(join(tmpdir(), 'karp-drift-first-contact-'));
});
afterAll(() => sandbox.stop());

const awsCalls = () => sandbox.aws.requests.filter((r) => r.service === 'ssm' || r.service === 'ec2').length;

describe('first contact: the message names what is wrong, and nothing is changed', () => {
  it('a typo in a flag is named, with the flag meant, not reported as the required flag it shadows', async () => {
    const run = await karpDrift(sandbox, ['plan', '--too', '1.30']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: unknown option '--too'\n(Did you mean --to?)\n(run with --help for usage)\n");
    // Without a typo, a missing required flag is still said as such.
    const missing = await karpDrift(sandbox, ['plan']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: required option '--to <minor>' not specified");
  });

  it('a malformed kubeconfig: one line saying where, and what to do next', async () => {
    const file = join(dir, 'kubeconfig');
    await writeFile(file, 'apiVersion: v1\nclusters:\n- cluster:\n    server: https://x\n  name: a\n contexts: [\n');
    const run = await karpDrift(sandbox, ['status', '--kubeconfig', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: cannot read kubeconfig ${file}: not valid YAML at line 6, column 2: bad indentation of a sequence entry\n` +
        `  next: fix the YAML at line 6 of ${file}, or point --kubeconfig at another file\n`,
    );
  });

  it('--canary naming no NodePool is refused before any SSM or EC2 call, listing the NodePools there are', async () => {
    const [calls, writes] = [awsCalls(), httpWrites(sandbox)];
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--canary', 'nosuch', '--yes']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: --canary "nosuch": no such NodePool in context [\w-]+; its NodePools: arm, general, system; nothing was changed\n {2}next: name one of those NodePools with --canary/m,
    );
    expect(awsCalls()).toBe(calls);
    expect(httpWrites(sandbox)).toBe(writes);
  });

  it('one duration grammar: days for every duration flag, and 0 means what the flag says', async () => {
    const days = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--dry-run', '--yes', '--timeout', '1d', '--stall-timeout', '1d12h', '--min-age', '0']);
    expect(days.code, days.stderr).toBe(0);
    const zero = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--timeout', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('error: --timeout "0" must be longer than 0: there is no "never"; give a long one, e.g. 7d');
    const soak = await karpDrift(sandbox, ['plan', '--to', '1.30', '--waves', '1,100%', '--soak', '0']);
    expect(soak.code, soak.stderr).toBe(0);
    expect(soak.stdout).toContain('no soak between waves');
  });
});

describe('first contact: what a run says about itself', () => {
  it.skipIf(pty === undefined)("a staged plan's NodePool rows keep their columns when a terminal wraps them", async () => {
    const staged = await scenario('staged');
    const screen = await inTerminal(['plan', '--to', '1.30', '--canary', 'canary', '--waves', '1,10%,100%'], 80, 50, undefined, { env: staged.env });
    expect(screen.exitCode).toBe(0);
    const rows = screen.lines.filter((l) => /^ {4}nodepool\//.test(l));
    expect(rows.length, screen.lines.join('\n')).toBe(3);
    // Each row is wider than 80 columns: wrapped at a space, its columns still apart by two spaces.
    for (const row of rows) expect(row).toMatch(/^ {4}nodepool\/\w+ +\d+ old nodes {2}(waves [\d, +]+ {2})?held with/);
  });

  it('Ctrl-C during the canary stage names the canary NodePool, not one a later stage holds', async () => {
    const staged = await scenario('staged', 180);
    const run = follow(staged, [...STAGED, '--soak', '20s']);
    await run.until((e) => e.type === 'wave' && e.stage === 1);
    await run.until((e) => e.type === 'progress' && typeof e.message === 'string' && e.message.startsWith('Waiting for NodePool'));
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toMatch(/error: interrupted while following the rollout: (Waiting for NodePool "canary"|NodePool "canary")/);
  }, 60_000);
});
