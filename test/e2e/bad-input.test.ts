// Bad input is refused with a clear message and the documented exit code, and the cluster is untouched: every row
// runs the built CLI against one sandbox and checks that no write reached the API server.
import { writeFile, mkdtemp } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../src/sandbox/kube-api/kubeconfig.js';
import { startKubeApiServer, type KubeApiServer } from '../../src/sandbox/kube-api/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { httpWrites, karpDrift } from './cli-sandbox.js';

let sandbox: Sandbox;
let dir: string;
// Accepts connections and never answers: the API server a firewall or a dead load balancer leaves behind.
let blackhole: Server;
const held: Socket[] = [];
// A cluster without Karpenter: the API server with no CRDs.
let bare: KubeApiServer;
beforeAll(async () => {
  bare = await startKubeApiServer({});
  blackhole = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const port = (blackhole.address() as { port: number }).port;
  sandbox = await startSandbox({ scenario: 'default', speed: 60 });
  dir = await mkdtemp(join(tmpdir(), 'karp-drift-bad-input-'));
  await writeFile(join(dir, 'garbage'), 'this: [is not: a kubeconfig\n');
  await writeFile(join(dir, 'empty'), '');
  // An insecure-skip-tls-verify kubeconfig for one server and one user entry (a token or an exec plugin).
  const kubeconfig = (name: string, server: string, user: string) =>
    writeFile(
      join(dir, name),
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{ name: c, cluster: { server: "${server}", insecure-skip-tls-verify: true } }]`,
        `users: [{ name: u, user: ${user} }]`,
        'contexts: [{ name: c, context: { cluster: c, user: u } }]',
        'current-context: c',
      ].join('\n'),
    );
  const exec = (plugin: string) =>
    `{ exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: "${join(dir, plugin)}", interactiveMode: Never } }`;
  await kubeconfig('unreachable', 'https://127.0.0.1:1', '{ token: not-a-real-token }');
  await kubeconfig('blackhole', `https://127.0.0.1:${port}`, '{ token: not-a-real-token }');
  await writeKubeconfig(join(dir, 'bare'), { server: bare.url, caData: bare.caData, token: bare.token });
  // An exec credential plugin that fails, as `aws eks get-token` does with an expired SSO session.
  await writeFile(join(dir, 'get-token'), '#!/bin/sh\necho "Error loading SSO Token: Token for sso-session prod has expired" >&2\nexit 255\n', { mode: 0o755 });
  await kubeconfig('exec', sandbox.kube.url, exec('get-token'));
  // One that never finishes: `aws eks get-token` on a network that drops packets to STS.
  await writeFile(join(dir, 'hangs'), '#!/bin/sh\necho "Waiting for the STS endpoint" >&2\nexec sleep 600\n', { mode: 0o755 });
  await kubeconfig('exec-hangs', sandbox.kube.url, exec('hangs'));
  // --amis-file: what `amis -o json` writes, for the default class's two architectures, edited as a pipeline might.
  const promoted = (minor: string, arches: string[], ids: Record<string, string> = {}) =>
    JSON.stringify({
      kubernetesVersion: minor,
      region: 'us-west-2',
      amis: arches.map((arch) => ({
        family: 'al2023',
        arch,
        variant: 'standard',
        release: 'v20260717',
        id: ids[arch] ?? `ami-0${arch === 'amd64' ? 'a' : 'b'}${'0'.repeat(15)}`,
        name: `amazon-eks-node-al2023-${arch === 'amd64' ? 'x86_64' : 'arm64'}-standard-${minor}-v20260717`,
      })),
    });
  await writeFile(join(dir, 'amis-1.29.json'), promoted('1.29', ['amd64', 'arm64']));
  await writeFile(join(dir, 'amis-amd64.json'), promoted('1.30', ['amd64']));
  // IDs that name no image in this region: deregistered since they were tested.
  await writeFile(join(dir, 'amis-deregistered.json'), promoted('1.30', ['amd64', 'arm64']));
  await writeFile(join(dir, 'status.json'), JSON.stringify({ nodePools: [] }));
});
afterAll(async () => {
  await bare.stop();
  for (const s of held) s.destroy();
  blackhole.close();
  await sandbox.stop();
});

const up = (...extra: string[]) => ['upgrade', '--to', '1.30', '--yes', ...extra];

describe('bad input: the documented exit code, a message that says what and where, nothing changed', () => {
  it.each<[string, () => string[], number, RegExp]>([
    ['a malformed --to (1.3O)', () => ['upgrade', '--to', '1.3O', '--yes'], 2, /"1\.3O" is not a Kubernetes version; accepted forms/],
    ['--to 2', () => ['upgrade', '--to', '2', '--yes'], 2, /"2" is not a Kubernetes version/],
    ['--to latest', () => ['upgrade', '--to', 'latest', '--yes'], 2, /"latest" is not a Kubernetes version/],
    // What YAML makes of an unquoted `to: 1.30`: refused before any call, naming the minor it most likely meant.
    ['--to 1.3 (an unquoted 1.30 in YAML)', () => ['upgrade', '--to', '1.3', '--yes'], 2, /^error: --to 1\.3: EKS never ran Kubernetes 1\.3 \(it began with 1\.10\), so no EKS-optimized AMI exists for it\n {2}next: did you mean --to 1\.30\? YAML reads an unquoted 1\.30 as the number 1\.3: quote the version \(to: '1\.30'\)$/m],
    ['--summary-file "" (an unset $GITHUB_STEP_SUMMARY)', () => up('--summary-file', ''), 2, /^error: --summary-file is empty \(is \$GITHUB_STEP_SUMMARY unset\? GitHub Actions sets it only inside a job step\)\n {2}next: pass the file to append the summary to, or leave --summary-file out$/m],
    ['a version with no AMIs published', () => ['upgrade', '--to', '1.40', '--yes'], 2, /no EKS-optimized AMI for Kubernetes 1\.40 in us-west-2/],
    ['a target newer than the control plane', () => ['upgrade', '--to', '1.31', '--yes'], 3, /TARGET-NEWER-THAN-CONTROL-PLANE/],
    ['a downgrade below the nodes', () => ['upgrade', '--to', '1.28', '--yes'], 3, /DOWNGRADE/],
    ['a missing kubeconfig', () => up('--kubeconfig', join(dir, 'missing')), 2, /missing/],
    ['a file that is not a kubeconfig', () => up('--kubeconfig', join(dir, 'garbage')), 2, /garbage/],
    ['an empty kubeconfig', () => up('--kubeconfig', join(dir, 'empty')), 2, /empty sets no current-context and has no contexts/],
    // Unreadable, whoever runs the tests (a mode-000 file is readable by root): a directory.
    ['an unreadable kubeconfig (a directory)', () => up('--kubeconfig', dir), 2, /cannot read kubeconfig .*: EISDIR/],
    ['an unknown --context', () => up('--context', 'nope'), 2, /no context "nope"/],
    ['an unknown --nodeclass', () => up('--nodeclass', 'nope'), 2, /nope/],
    ['an --amis-file that does not exist', () => up('--amis-file', join(dir, 'missing.json')), 2, /error: cannot read --amis-file .*missing\.json: ENOENT\n {2}next: pass the path of the file `karp-drift amis -o json` or `karp-drift plan -o json` wrote/],
    ['an unreadable --amis-file (a directory)', () => up('--amis-file', dir), 2, /error: cannot read --amis-file .*: EISDIR/],
    ['an --amis-file that is not JSON', () => up('--amis-file', join(dir, 'garbage')), 2, /error: --amis-file .*garbage is not JSON \(/],
    ['an --amis-file that is another document', () => up('--amis-file', join(dir, 'status.json')), 2, /--amis-file .*status\.json is JSON but not the document `karp-drift amis -o json` or `karp-drift plan -o json` writes/],
    ['an --amis-file for another minor', () => up('--amis-file', join(dir, 'amis-1.29.json')), 2, /error: --amis-file .*amis-1\.29\.json records AMIs for Kubernetes 1\.29, but --to is 1\.30; nothing was changed\n {2}next: pass --to 1\.29/],
    ['an --amis-file lacking an architecture a class needs', () => up('--amis-file', join(dir, 'amis-amd64.json'), '--nodeclass', 'default'), 2, /lacks AMIs the classes in scope need; nothing was changed:\n {2}ec2nodeclass\/default needs al2023 arm64 standard \(needed by status\.amis, nodepool\/arm/],
    ['an --amis-file whose AMIs were deregistered since', () => up('--amis-file', join(dir, 'amis-deregistered.json'), '--nodeclass', 'default'), 3, /AMI-MISSING: the al2023 amd64 standard AMI for Kubernetes 1\.30 \(ami-0a0{15}\) is not usable: EC2 DescribeImages in us-west-2 does not return ami-0a0{15}/],
    ['--amis-file with --release', () => up('--amis-file', join(dir, 'amis-amd64.json'), '--release', 'v20260717'), 2, /--release v20260717 cannot go with --amis-file/],
    ['a --from-context the kubeconfig lacks', () => up('--from-context', 'staging'), 2, /error: --from-context staging: no context "staging" in .*; its contexts: karp-drift-sandbox-default; nothing was changed\n {2}next: pass one of those contexts with --from-context/],
    ['a --from-kubeconfig that does not exist', () => up('--from-kubeconfig', join(dir, 'missing')), 2, /error: --from-kubeconfig .*missing: no such file; nothing was changed/],
    ['--from-context naming this cluster', () => up('--from-context', 'karp-drift-sandbox-default'), 2, /error: --from-context karp-drift-sandbox-default is this cluster \(context karp-drift-sandbox-default, https:\/\/127\.0\.0\.1:\d+\): there is nothing to promote from it to itself/],
    ['a --from-kubeconfig cluster without Karpenter CRDs', () => up('--from-kubeconfig', join(dir, 'bare')), 2, /error: --from-kubeconfig .*bare \(the source cluster\): no Karpenter CRDs in context .*is Karpenter installed\?; nothing was changed/],
    ['--from-context with --amis-file', () => up('--from-context', 'staging', '--amis-file', join(dir, 'amis-amd64.json')), 2, /--from-context staging cannot go with --amis-file: both name the AMIs to promote/],
    ['--from-context with --release', () => up('--from-context', 'staging', '--release', 'v20260717'), 2, /--release v20260717 cannot go with --from-context staging/],
    ['--from-context with --templates', () => up('--from-context', 'staging', '--templates', dir, '--cluster-name', 'prod', '--role', 'r'), 2, /--from-context cannot go with --templates/],
    ['a duration with no such unit (2w)', () => up('--timeout', '2w'), 2, /--timeout "2w" is not a duration; write 90s, 15m, 1h30m, 7d or 1d12h/],
    ['an unknown flag', () => up('--bogus'), 2, /unknown option '--bogus'/],
    ['AL2 at 1.33', () => ['amis', '--to', '1.33', '--family', 'al2'], 2, /al2 has no EKS-optimized AMIs for Kubernetes 1\.33/],
    ['an unreachable API server', () => up('--kubeconfig', join(dir, 'unreachable')), 1, /127\.0\.0\.1:1/],
    ['an API server that never answers (--request-timeout 2s)', () => up('--kubeconfig', join(dir, 'blackhole'), '--request-timeout', '2s'), 1, /within 2 s \(--request-timeout\)/],
    ['a bad --request-timeout', () => up('--request-timeout', 'soon'), 2, /--request-timeout "soon" is not a duration/],
    ['--stall-timeout 0s', () => up('--stall-timeout', '0s'), 2, /error: --stall-timeout "0s" must be longer than 0: every moment would be a stall/],
    ['an AWS profile that does not exist', () => up('--profile', 'nope'), 2, /error: --profile nope: profile "nope" does not exist in .*config.*, .*credentials/],
    ['sandbox --port already in use', () => ['sandbox', '--port', new URL(sandbox.kube.url).port], 2, /error: --port \d+: 127\.0\.0\.1:\d+ is already in use[^]*next: pick another port, or leave --port out/],
    // --expect-cluster: EKS (the sandbox's DescribeCluster) must vouch for the context before anything else is sent.
    ['an --expect-cluster EKS does not know', () => up('--expect-cluster', 'prod'), 3, /error: --expect-cluster prod: no EKS cluster named prod in region us-west-2; nothing was changed\n {2}next: check the name and the region/],
    [
      'an --expect-cluster ARN of another account (a mismatch)',
      () => up('--expect-cluster', 'arn:aws:eks:us-west-2:444455556666:cluster/sandbox'),
      3,
      /kubeconfig context "karp-drift-sandbox-default" \(server https:\/\/127\.0\.0\.1:\d+\) is not EKS cluster sandbox \(arn:aws:eks:us-west-2:111122223333:cluster\/sandbox, endpoint https:\/\/127\.0\.0\.1:\d+\): the cluster is in account 111122223333, not 444455556666/,
    ],
    ['a malformed --expect-cluster', () => up('--expect-cluster', 'arn:aws:eks:prod'), 2, /--expect-cluster "arn:aws:eks:prod" is not an EKS cluster ARN; expected arn:aws:eks:<region>:<12-digit account>:cluster\/<name>/],
    ['a cluster without Karpenter CRDs', () => up('--kubeconfig', join(dir, 'bare')), 2, /no Karpenter CRDs in context .*is Karpenter installed\?/],
    ['a failing exec credential plugin (its stderr shown)', () => up('--kubeconfig', join(dir, 'exec')), 1, /Token for sso-session prod has expired/],
    [
      'an exec credential plugin that never finishes (--request-timeout 2s)',
      () => up('--kubeconfig', join(dir, 'exec-hangs'), '--request-timeout', '2s'),
      1,
      /exec plugin ".*hangs" did not finish within 2 s \(--request-timeout\) and was stopped; its stderr: Waiting for the STS endpoint/,
    ],
  ])('%s', async (_name, args, code, message) => {
    const before = httpWrites(sandbox);
    const run = await karpDrift(sandbox, args(), 60_000);
    expect(run.code, run.stderr).toBe(code);
    expect(`${run.stdout}${run.stderr}`).toMatch(message);
    expect(run.stderr).not.toContain('not-a-real-token');
    expect(httpWrites(sandbox)).toBe(before);
  });

  it('an SSM endpoint that refuses connections → exit 1 naming the endpoint and its variable, nothing changed', async () => {
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes'], 60_000, { AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:1' });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('error: SSM GetParameters in us-west-2 failed: nothing answers at http://127.0.0.1:1 (AWS_ENDPOINT_URL_SSM): ECONNREFUSED');
    expect(run.stderr).toContain('or unset AWS_ENDPOINT_URL_SSM to reach AWS itself');
    expect(run.stderr).not.toContain('internal error');
    expect(httpWrites(sandbox)).toBe(0);
  });

  it('RBAC that forbids the apply → exit 3 with the permission table, checked before the first write', async () => {
    sandbox.kube.faults.forbid({ verbs: ['patch'], resources: ['ec2nodeclasses'] });
    try {
      const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes']);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain('lacks 2 permission(s) this run needs; nothing was changed');
      expect(run.stderr).toMatch(/patch\s+ec2nodeclasses\.karpenter\.k8s\.aws\s+default\s+no/);
      expect(run.stderr).toMatch(/watch\s+nodeclaims\.karpenter\.sh\s+\*\s+yes/);
      expect(run.stderr).toContain('deploy/rbac.yaml');
      expect(httpWrites(sandbox)).toBe(0);
    } finally {
      sandbox.kube.faults.clear();
    }
  });

  it.each<['ssm' | 'ec2', RegExp]>([
    ['ssm', /SSM GetParameters in us-west-2 was throttled \(ThrottlingException\) and the SDK's retries ran out/],
    ['ec2', /EC2 DescribeImages in us-west-2 was throttled \(RequestLimitExceeded\) and the SDK's retries ran out/],
  ])('%s throttling beyond the SDK retries → exit 1 naming the call and what to do, nothing changed', async (service, message) => {
    sandbox.aws.faults.throttle({ service, rate: 1 });
    try {
      const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain('retry in a minute, or raise AWS_MAX_ATTEMPTS / set AWS_RETRY_MODE=adaptive');
      // The SDK's standard mode tries 3 times; karp-drift adds no retries of its own on top.
      const calls = sandbox.aws.requests.filter((r) => r.service === service).length;
      expect(calls).toBeGreaterThanOrEqual(3);
      expect(httpWrites(sandbox)).toBe(0);
    } finally {
      sandbox.aws.faults.clear();
    }
  });

  it('SSM AccessDenied → exit 1 naming the IAM action, nothing changed', async () => {
    sandbox.aws.faults.denyAccess({ service: 'ssm' });
    try {
      const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain('ssm:GetParameters');
      expect(httpWrites(sandbox)).toBe(0);
    } finally {
      sandbox.aws.faults.clear();
    }
  });
});
