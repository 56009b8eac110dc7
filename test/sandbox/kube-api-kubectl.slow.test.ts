// The real kubectl against the sandbox API server: a second client nobody here wrote (STYLE.md). Each run gets the
// generated kubeconfig, a fresh --cache-dir (no discovery cached from another server) and a timeout.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { ec2NodeClass, node, nodeClaim, startTestCluster, type TestCluster } from './kube-api-sandbox.js';

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

const kubectl = onPath('kubectl');
if (!kubectl)
  console.warn('SKIPPED: the kubectl tests of the sandbox API server need kubectl on PATH, and it is not there.');

let cluster: TestCluster;

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[], timeoutMs = 30_000): Run {
  const child = spawn(
    kubectl ?? 'kubectl',
    ['--kubeconfig', cluster.kubeconfigPath, '--cache-dir', join(cluster.dir, 'cache'), ...args],
    {
      timeout: timeoutMs,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(args);
  const code = await r.exit;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

const store = () => cluster.server.store;

beforeAll(async () => {
  cluster = await startTestCluster();
  store().create(
    'nodes',
    node('ip-10-0-1-17.us-west-2.compute.internal', {
      'karpenter.sh/nodepool': 'default',
    }),
  );
  const drifted = nodeClaim('default-x7k2p', {
    finalizers: ['karpenter.sh/termination'],
  });
  drifted.status = {
    nodeName: 'ip-10-0-1-17.us-west-2.compute.internal',
    imageID: 'ami-0old',
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        message: '',
        lastTransitionTime: '2024-09-01T00:00:00Z',
      },
      {
        type: 'Drifted',
        status: 'True',
        reason: 'AMIDrift',
        message: '',
        lastTransitionTime: '2024-09-02T00:00:00Z',
      },
    ],
  };
  store().create('nodeclaims.karpenter.sh', drifted, { wholeObject: true });
  store().create('ec2nodeclasses.karpenter.k8s.aws', ec2NodeClass('default'));
});
afterAll(() => cluster?.close());

describe.skipIf(!kubectl)('kubectl against the sandbox API server', () => {
  it('get nodes', async () => {
    const { code, stdout } = await run('get', 'nodes');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    expect(stdout).toMatch(/ip-10-0-1-17\.us-west-2\.compute\.internal\s+Ready\s+<none>\s+\S+\s+v1\.30\.4-eks-a737599/);
  });

  it('get nodeclaims -o wide shows the CRD printer columns, Drifted included', async () => {
    const { code, stdout } = await run('get', 'nodeclaims', '-o', 'wide');
    expect(code).toBe(0);
    const [header = '', row = ''] = stdout.split('\n');
    expect(header.split(/\s+/)).toEqual([
      'NAME',
      'TYPE',
      'CAPACITY',
      'ZONE',
      'NODE',
      'READY',
      'AGE',
      'IMAGEID',
      'ID',
      'NODEPOOL',
      'NODECLASS',
      'DRIFTED',
    ]);
    expect(row).toMatch(
      /^default-x7k2p\s+ip-10-0-1-17\.us-west-2\.compute\.internal\s+True\s+\S+\s+ami-0old\s+default\s+default\s+True$/,
    );
  });

  it('get ec2nodeclass <name> -o yaml', async () => {
    const { code, stdout } = await run('get', 'ec2nodeclass', 'default', '-o', 'yaml');
    expect(code).toBe(0);
    const object = load(stdout) as KubeObject;
    expect(object).toMatchObject({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default', generation: 1 },
    });
    // Defaults from the CRD schema were applied on create.
    expect(object.spec).toMatchObject({
      role: 'KarpenterNodeRole-demo',
      metadataOptions: { httpTokens: 'required' },
    });
  });

  it('apply --server-side -f <file> creates the object owned by kubectl', async () => {
    const file = join(cluster.dir, 'nodeclass.json');
    await writeFile(file, JSON.stringify(ec2NodeClass('from-kubectl')));
    const { code, stdout } = await run('apply', '--server-side', '-f', file);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('ec2nodeclass.karpenter.k8s.aws/from-kubectl serverside-applied');
    const stored = store().get('ec2nodeclasses.karpenter.k8s.aws', 'from-kubectl');
    expect(stored?.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['kubectl', 'Apply']]);
  });

  it('apply --server-side of an invalid EC2NodeClass fails with the CEL message', async () => {
    const file = join(cluster.dir, 'invalid.json');
    await writeFile(
      file,
      JSON.stringify(
        ec2NodeClass('pinned', {
          amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }],
        }),
      ),
    );
    const { code, stderr } = await run('apply', '--server-side', '-f', file);
    expect(code).not.toBe(0);
    expect(stderr).toContain('must specify amiFamily if amiSelectorTerms does not contain an alias');
    expect(store().get('ec2nodeclasses.karpenter.k8s.aws', 'pinned')).toBeUndefined();
  });

  it('delete nodeclaim waits while the finalizer exists and returns once it is removed', async () => {
    store().create('nodeclaims.karpenter.sh', nodeClaim('default-d3l3t', { finalizers: ['karpenter.sh/termination'] }));
    const deleting = start(['delete', 'nodeclaim', 'default-d3l3t']);
    // kubectl deletes, then watches the object until it is gone: once that watch is open it is waiting on us.
    await expect
      .poll(
        () =>
          cluster.server.requests.some(
            (r) => r.verb === 'watch' && r.resource === 'nodeclaims' && r.userAgent.startsWith('kubectl'),
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(deleting.child.exitCode).toBeNull();
    const terminating = store().get('nodeclaims.karpenter.sh', 'default-d3l3t');
    expect(terminating?.metadata.deletionTimestamp).toBeDefined();
    store().update('nodeclaims.karpenter.sh', {
      ...(terminating as KubeObject),
      metadata: { ...(terminating as KubeObject).metadata, finalizers: [] },
    });
    expect(await deleting.exit).toBe(0);
    expect(deleting.stdout()).toContain('nodeclaim.karpenter.sh "default-d3l3t" deleted');
    expect(store().get('nodeclaims.karpenter.sh', 'default-d3l3t')).toBeUndefined();
  });

  it('get nodeclaims --watch prints an update', async () => {
    const watching = start(['get', 'nodeclaims', '--watch']);
    try {
      await expect
        .poll(() => watching.stdout().includes('default-x7k2p'), {
          timeout: 20_000,
        })
        .toBe(true);
      const live = store().get('nodeclaims.karpenter.sh', 'default-x7k2p') as KubeObject;
      const status = live.status as {
        conditions: Array<Record<string, unknown>>;
      };
      const notReady = status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c));
      store().update(
        'nodeclaims.karpenter.sh',
        { ...live, status: { ...status, conditions: notReady } },
        { subresource: 'status' },
      );
      await expect
        .poll(() => /^default-x7k2p\s.*\sFalse\s/m.test(watching.stdout()), {
          timeout: 20_000,
        })
        .toBe(true);
      expect(watching.stdout().split('\n')[0]).toMatch(/^NAME\s+TYPE\s+CAPACITY/);
    } finally {
      watching.child.kill();
      await watching.exit;
    }
  });
});
