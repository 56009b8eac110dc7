// Drives a sandbox scenario by hand: a ManualClock, one simulated second per simulator pass, and AMI changes made
// through the API with @kubernetes/client-node, the way any client (kubectl, Argo CD, karp-drift) would make them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { newestRelease, seriesReleases } from '../../../src/sandbox/aws/lookup.js';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import type { Scenario } from '../../../src/sandbox/scenarios/schema.js';

export const NODECLAIMS = 'nodeclaims.karpenter.sh';

/** `log` receives the simulated Karpenter's log lines. */
export async function manualSandbox(
  scenario: string | Scenario,
  log?: (line: string) => void,
): Promise<Sandbox & { clock: ManualClock }> {
  const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
  const sandbox = await startSandbox({ scenario, manualClock: clock, ...(log ? { log } : {}) });
  return Object.assign(sandbox, { clock });
}

export function run(sandbox: Sandbox & { clock: ManualClock }, seconds: number): void {
  for (let i = 0; i < seconds; i++) {
    sandbox.clock.advance(1000);
    sandbox.simulator.pass();
  }
}

/**
 * Runs one simulated second at a time until `done`, at most `maxSeconds` (then throws, naming what it waited for);
 * returns the simulated seconds it took.
 */
export function runUntil(
  sandbox: Sandbox & { clock: ManualClock },
  done: () => boolean,
  maxSeconds: number,
  what = 'the condition',
): number {
  for (let s = 0; s <= maxSeconds; s++) {
    if (done()) return s;
    run(sandbox, 1);
  }
  throw new Error(`${what} not reached within ${maxSeconds} simulated seconds`);
}

/**
 * The drift of these NodePools is over: no command in flight, no NodeClaim deleting, no pod waiting for a node, every
 * NodeClaim on one of `target` Initialized, and at most `held` still on another AMI (those a blocker keeps).
 */
export function settled(sandbox: Sandbox, pools: readonly string[], target: readonly string[], held = 0): boolean {
  const claims = pools.flatMap((p) => claimsOf(sandbox, p));
  const initialized = (c: KubeObject) =>
    (c.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some(
      (x) => x.type === 'Initialized' && x.status === 'True',
    ) === true;
  const memory = sandbox.simulator.ctx.memory;
  return (
    memory.commands.size === 0 &&
    memory.pending.size === 0 &&
    memory.unscheduled.size === 0 &&
    claims.every((c) => !c.metadata.deletionTimestamp) &&
    claims.filter((c) => !target.includes(imageOf(c) ?? '')).length <= held &&
    claims.filter((c) => target.includes(imageOf(c) ?? '')).every(initialized)
  );
}

export function customObjects(sandbox: Sandbox): CustomObjectsApi {
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  return kc.makeApiClient(CustomObjectsApi);
}

/** The control plane's newest AMIs (or those of `release`) for the class's family and arches. */
export function controlPlaneAmis(sandbox: Sandbox, nodeClass: string, release?: string): string[] {
  const built = sandbox.cluster.nodeClasses.find((c) => c.name === nodeClass)!;
  return built.arches.map((arch) => {
    const series = {
      family: built.family,
      kubernetesVersion: sandbox.scenario.controlPlaneVersion,
      arch,
      variant: built.variant,
    };
    const found =
      release === undefined
        ? newestRelease(sandbox.aws.catalog, series)
        : seriesReleases(sandbox.aws.catalog, series).find((r) => r.release === release);
    return found!.imageId;
  });
}

/** Pins the class to the control plane's AMIs with a JSON merge patch, as `kubectl patch --type merge` would. */
export async function pinToControlPlane(
  sandbox: Sandbox,
  nodeClass: string,
  release?: string,
  version: 'v1' | 'v1beta1' = 'v1',
): Promise<string[]> {
  const ids = controlPlaneAmis(sandbox, nodeClass, release);
  await customObjects(sandbox).patchClusterCustomObject(
    {
      group: 'karpenter.k8s.aws',
      version,
      plural: 'ec2nodeclasses',
      name: nodeClass,
      body: { spec: { amiSelectorTerms: ids.map((id) => ({ id })) } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return ids;
}

export function imageOf(claim: KubeObject): string | undefined {
  return (claim.status as { imageID?: string } | undefined)?.imageID;
}

export function claimsOf(sandbox: Sandbox, nodePool: string): KubeObject[] {
  return sandbox.kube.store.list(NODECLAIMS).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === nodePool);
}

export const kubectlPath = (() => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, 'kubectl'), constants.X_OK);
      return join(dir, 'kubectl');
    } catch {
      // not here
    }
  }
  return undefined;
})();

/**
 * Runs the real kubectl against the sandbox (asynchronously: the API server answers from this same process);
 * undefined when kubectl is not installed, and the caller says that it skipped.
 */
export async function kubectl(sandbox: Sandbox, args: string[]): Promise<string | undefined> {
  if (!kubectlPath) return undefined;
  const cacheDir = join(sandbox.kubeconfigPath, '..', 'kubectl-cache');
  const { stdout } = await promisify(execFile)(
    kubectlPath,
    ['--kubeconfig', sandbox.kubeconfigPath, '--cache-dir', cacheDir, ...args],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  return stdout;
}

if (!kubectlPath)
  console.warn('SKIPPED: the kubectl checks of the sandbox scenarios need kubectl on PATH, and it is not there.');
