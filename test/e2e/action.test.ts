// The GitHub Action against the sandbox (action.ts): the main and post steps run from source under GitHub's own local
// runner for actions (@github/local-action: inputs from a .env file, @actions/core stubbed, outputs printed).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';
import { localAction } from './action.js';
import { checkContract } from './contracts.js';

describe('the GitHub Action (action.yml)', () => {
  it('plan: the CLI output in a group, untouched and fenced from workflow commands; outputs, result document, step summary', async () => {
    const sandbox = await scenario('default');
    const ran = await localAction(sandbox, { command: 'plan', to: '1.30' });
    expect(ran.code, ran.stdout).toBe(0);
    const group = ran.stdout.indexOf('::group::karp-drift plan --to 1.30\n');
    const fence = /^::stop-commands::([\w-]+)$/m.exec(ran.stdout);
    expect(group).toBeGreaterThan(-1);
    expect(fence).not.toBeNull();
    const inside = ran.stdout.slice(fence!.index, ran.stdout.indexOf(`::${fence![1]}::`));
    expect(inside).toContain('Plan: 2 EC2NodeClasses to change, 12 nodes to replace.');
    expect(ran.stdout.indexOf('::endgroup::')).toBeGreaterThan(ran.stdout.indexOf(`::${fence![1]}::`));
    expect(ran.outputs).toMatchObject({ result: 'succeeded', 'exit-code': '0', 'nodes-replaced': '' });
    const doc = JSON.parse(await readFile(ran.outputs.json!, 'utf8')) as Record<string, unknown>;
    checkContract('result', "the action's json output", doc);
    expect(doc).toMatchObject({
      kind: 'Result',
      command: 'plan',
      exitCode: 0,
      result: 'succeeded',
      nodesReplaced: null,
    });
    expect((doc.plan as { nodeClasses: unknown[] }).nodeClasses).toHaveLength(2);
    expect(ran.summary).toContain('### karp-drift plan: ✅ succeeded (exit 0)');
    expect(ran.stdout).toContain('karp-drift plan: nothing to clean up (not a staged upgrade)');
    expect(httpWrites(sandbox)).toBe(0);
  }, 180_000);

  it('upgrade without to: the step fails on the input, karp-drift never runs, nothing is changed', async () => {
    const sandbox = await scenario('default');
    const before = sandbox.kube.requests.length;
    const ran = await localAction(sandbox, { command: 'upgrade' });
    expect(ran.stdout).toMatch(
      /::error::input to is required for command upgrade: the Kubernetes minor to move the nodes to, e\.g\. to: '1\.31'/,
    );
    expect(ran.outputs).toMatchObject({ result: 'invalid', 'exit-code': '2' });
    expect(ran.stdout).not.toContain('::group::');
    expect(sandbox.kube.requests.length).toBe(before);
  }, 180_000);

  it('upgrade: the rollout followed to the end, nodes-replaced, the rollout in the step summary', async () => {
    const sandbox = await scenario('default');
    const ran = await localAction(sandbox, { command: 'upgrade', to: '1.30', args: '--timeout 5m' });
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toContain('::group::karp-drift upgrade --to 1.30 --yes --timeout 5m\n');
    expect(ran.outputs).toMatchObject({ result: 'succeeded', 'exit-code': '0', 'nodes-replaced': '12' });
    checkContract('result', "the action's json output", JSON.parse(await readFile(ran.outputs.json!, 'utf8')));
    expect(ran.stdout).toContain('karp-drift upgrade: succeeded (exit 0), 12 nodes replaced');
    expect(ran.summary).toContain('#### Rollout');
    const images = new Set(
      sandbox.kube.store.list('nodeclaims.karpenter.sh').map((c) => (c.status as { imageID?: string }).imageID),
    );
    const pinned = sandbox.kube.store
      .list('ec2nodeclasses.karpenter.k8s.aws')
      .flatMap((c) => (c.spec as { amiSelectorTerms: Array<{ id: string }> }).amiSelectorTerms.map((t) => t.id));
    for (const image of images) expect(pinned).toContain(image);

    // The fleet workflow's promotion: the json output, as another cluster's --amis-file, pins exactly these AMIs.
    const production = await scenario('default');
    const promoted = await karpDrift(production, [
      'plan',
      '--to',
      '1.30',
      '--amis-file',
      ran.outputs.json!,
      '-o',
      'json',
    ]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const plan = JSON.parse(promoted.stdout) as {
      source: { kind: string };
      nodeClasses: Array<{ targets: Array<{ id: string }> }>;
    };
    expect(plan.source.kind).toBe('file');
    expect(new Set(plan.nodeClasses.flatMap((c) => c.targets.map((t) => t.id)))).toEqual(new Set(pinned));
  }, 240_000);

  it('a stalled upgrade: the step fails with the verdict and its next step, blockers as error annotations', async () => {
    const sandbox = await scenario('pdb-blocked');
    const ran = await localAction(sandbox, {
      command: 'upgrade',
      to: '1.30',
      args: '--stall-timeout 20s --timeout 3m',
    });
    // The default upgrade is staged: a stall leaves it paused (the result document's result; cause stalled).
    expect(ran.outputs).toMatchObject({ result: 'paused', 'exit-code': '4' });
    expect(ran.stdout).toMatch(/^::error::karp-drift upgrade: paused \(stalled, exit 4\)/m);
    expect(ran.stdout).toMatch(/^::error title=STALL-PDB nodepool\/\S+::/m);
    const errors = ran.stdout.match(/^::error/gm) ?? [];
    expect(errors.length).toBeLessThanOrEqual(10);
  }, 240_000);
});
