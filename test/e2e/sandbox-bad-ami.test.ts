// Each bad-ami built-in as a user meets it: `karp-drift sandbox --scenario bad-ami-<symptom>` in a child process, the
// class pinned through the API to what `karp-drift amis --to 1.30` lists (the newest release: the bad one), and the
// failure read back through the API as a client sees Karpenter's writes. A high speed (600: 15 simulated minutes in
// 1.5 s) keeps each a few seconds; every wait is on what the API shows, not on time.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';

const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface Claim {
  metadata: { name: string; labels: Record<string, string> };
  status?: { imageID?: string; conditions?: Condition[] };
}
const condition = (o: { status?: { conditions?: Condition[] } }, type: string) =>
  o.status?.conditions?.find((c) => c.type === type);

/** The sandbox CLI serving the scenario, its exports, and API clients made from them. */
async function sandbox(scenario: string) {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-bad-ami-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--scenario', scenario, '--speed', '600'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(async () => {
    child.kill('SIGINT');
    await exited;
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  for (let i = 0; i < 400 && !stderr.includes('Serving until interrupted'); i++) await sleep(25);
  expect(stderr).toContain(`sandbox "${scenario}"`);
  const env = Object.fromEntries([...stdout.matchAll(/^export ([A-Z_0-9]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
  const kc = new KubeConfig();
  kc.loadFromFile(env.KUBECONFIG!);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const { stdout: json } = await promisify(execFile)(process.execPath, [MAIN, 'amis', '--to', '1.30', '-o', 'json'], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
  });
  const bad = (JSON.parse(json) as { amis: Array<{ id: string }> }).amis.map((a) => a.id);
  await custom.patchClusterCustomObject(
    {
      group: 'karpenter.k8s.aws',
      version: 'v1',
      plural: 'ec2nodeclasses',
      name: 'default',
      body: { spec: { amiSelectorTerms: bad.map((id) => ({ id })) } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const claims = async () =>
    ((await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as {
      items: Claim[];
    }).items;
  const canaryHealth = async () =>
    condition(
      (await custom.getClusterCustomObject({
        group: 'karpenter.sh',
        version: 'v1',
        plural: 'nodepools',
        name: 'canary',
      })) as { status?: { conditions?: Condition[] } },
      'NodeRegistrationHealthy',
    );
  const eventsOf = async (name: string) =>
    (await core.listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${name}` })).items.map((e) => e.reason);
  return { bad, claims, canaryHealth, eventsOf, core };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns something, for at most 60 real seconds (a loaded CI machine starves the child). */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    const found = await check();
    if (found !== undefined) return found;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The replacements seen so far (by name), and which of them the API no longer has. */
function tracker(claims: () => Promise<Claim[]>) {
  const seen = new Map<string, Claim>();
  return async (isReplacement: (c: Claim) => boolean) => {
    const now = await claims();
    for (const c of now) if (isReplacement(c)) seen.set(c.metadata.name, c);
    const present = new Set(now.map((c) => c.metadata.name));
    return [...seen.values()].filter((c) => !present.has(c.metadata.name));
  };
}

describe('karp-drift sandbox --scenario bad-ami-<symptom>: the bad AMI fails as Karpenter fails it', () => {
  it('bad-ami-never-registers: replacements launch from the bad AMI, never register, and are deleted by liveness; NodeRegistrationHealthy=False RegistrationFailed', async () => {
    const s = await sandbox('bad-ami-never-registers');
    const deleted = tracker(s.claims);
    const gone = await until('a replacement deleted', async () => {
      const d = await deleted(
        (c) => s.bad.includes(c.status?.imageID ?? '') && condition(c, 'Registered')?.reason === 'NodeNotFound',
      );
      return d.length > 0 ? d : undefined;
    });
    expect(await s.eventsOf(gone[0]!.metadata.name)).toContain('DisruptionLaunching');
    expect(await until('the NodePool condition', async () => {
      const c = await s.canaryHealth();
      return c?.status === 'False' ? c : undefined;
    })).toMatchObject({ reason: 'RegistrationFailed', message: 'Failed to register node' });
  });

  it('bad-ami-launch-fails: replacements never launch (Launched=Unknown LaunchFailed) and are deleted by liveness; NodeRegistrationHealthy=False LaunchFailed', async () => {
    const s = await sandbox('bad-ami-launch-fails');
    const deleted = tracker(s.claims);
    const gone = await until('a replacement deleted', async () => {
      const d = await deleted((c) => condition(c, 'Launched')?.reason === 'LaunchFailed');
      return d.length > 0 ? d : undefined;
    });
    expect(condition(gone[0]!, 'Launched')).toMatchObject({ status: 'Unknown', message: 'Instance launch failed' });
    expect(gone[0]!.status?.imageID).toBeUndefined();
    expect(await s.eventsOf(gone[0]!.metadata.name)).toContain('DisruptionLaunching');
    expect(await until('the NodePool condition', async () => {
      const c = await s.canaryHealth();
      return c?.status === 'False' ? c : undefined;
    })).toMatchObject({ reason: 'LaunchFailed', message: 'Instance launch failed' });
  });

  it('bad-ami-never-ready: replacements register and stay NotReady; the commands time out, and the NotReady replacements stay and keep their nodes from being tried again', async () => {
    const s = await sandbox('bad-ami-never-ready');
    const deleted = tracker(s.claims);
    const isBad = (c: Claim) =>
      s.bad.includes(c.status?.imageID ?? '') && c.metadata.labels['karpenter.sh/nodepool'] === 'canary';
    const stuck = await until('a NotReady canary replacement', async () => {
      const bad = (await s.claims()).filter((c) => isBad(c) && condition(c, 'Registered')?.status === 'True');
      return bad.length > 0 ? bad : undefined;
    });
    expect(condition(stuck[0]!, 'Initialized')).toMatchObject({ status: 'Unknown', reason: 'NodeNotReady' });
    const nodes = (await s.core.listNode({ labelSelector: 'karpenter.sh/nodepool=canary' })).items;
    const notReady = nodes.find((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False');
    expect(notReady?.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain('cni plugin not initialized');
    expect(await s.eventsOf(stuck[0]!.metadata.name)).toContain('DisruptionWaitingReadiness');
    // Ten minutes after it started, its command times out; its node's pods would then land on the replacement that
    // stays (a node still initializing), so Karpenter refuses the node from then on instead of starting another.
    // Any stuck replacement may be the one named: on a loaded machine more than the first have registered by now.
    const names = new Set(stuck.map((c) => c.metadata.name));
    const refusal = await until('a canary node refused for a stuck replacement', async () => {
      for (const c of await s.claims()) if (isBad(c) && condition(c, 'Registered')?.status === 'True') names.add(c.metadata.name);
      const events = (await s.core.listEventForAllNamespaces({ fieldSelector: 'reason=DisruptionBlocked' })).items;
      return events.find((e) => [...names].some((n) => e.message?.includes(`=> would schedule against uninitialized nodeclaim/${n}, node/`)));
    });
    expect(refusal.involvedObject.kind).toMatch(/^(Node|NodeClaim)$/);
    expect(await deleted(isBad)).toEqual([]);
  });

  it('bad-ami-not-ready: replacements initialize, then go NotReady', async () => {
    const s = await sandbox('bad-ami-not-ready');
    const node = await until('a NotReady canary node', async () => {
      const nodes = (await s.core.listNode({ labelSelector: 'karpenter.sh/nodepool=canary' })).items;
      return nodes.find(
        (n) =>
          n.metadata?.labels?.['karpenter.sh/initialized'] === 'true' &&
          n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False',
      );
    });
    expect(await s.eventsOf(node.metadata!.name!)).toContain('NodeNotReady');
  });

  it('bad-ami: pods on the replacements crash-loop', async () => {
    const s = await sandbox('bad-ami');
    const pod = await until('a crash-looping pod', async () => {
      const pods = (await s.core.listPodForAllNamespaces()).items;
      return pods.find((p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff');
    });
    expect(pod.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(139);
  });
});
