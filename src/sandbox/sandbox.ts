// startSandbox: the simulated EKS cluster in one call — the Kubernetes API server (HTTPS, a generated CA, a token),
// the SSM/EC2/EKS endpoints, a scenario's objects, and the simulated Karpenter — plus the kubeconfig and the environment
// that point karp-drift, kubectl and the AWS SDK at it. `karp-drift sandbox`, `demo` and the tests all start here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAwsEndpoints, type AwsEndpoints } from './aws/server.js';
import { scaledClock, type ManualClock, type SimClock } from './karpenter/clock.js';
import { REGION } from './karpenter/objects.js';
import { KarpenterSimulator } from './karpenter/simulator.js';
import { eksVersion } from './kube-api/discovery.js';
import { writeKubeconfig } from './kube-api/kubeconfig.js';
import { startKubeApiServer, type KubeApiServer } from './kube-api/server.js';
import { badAmiFault } from './scenarios/bad-ami.js';
import { buildCluster, type BuiltCluster } from './scenarios/build.js';
import { karpenterConversions, karpenterCrds } from './scenarios/karpenter-crds.js';
import { loadScenario } from './scenarios/load.js';
import { budgetSupport, hashVersions, karpenterVersionOf, nodeClassConditions, registrationHealthRule } from './scenarios/versions.js';
import { seededRandom } from './scenarios/random.js';
import type { Scenario } from './scenarios/schema.js';
import { gitopsCrds } from './gitops/crds.js';
import { startGitOps, type GitOpsSyncer } from './gitops/start.js';
import type { GitOpsTool } from './scenarios/field-managers.js';

/** How long ago the sandbox's EKS cluster was created, for DescribeCluster's createdAt. */
const CLUSTER_AGE_MS = 90 * 24 * 3_600_000;

export interface SandboxOptions {
  /** A built-in name, a YAML path, or a parsed scenario (default: `default`). */
  scenario?: string | Scenario;
  /** Overrides the scenario's speed (simulated seconds per real second). */
  speed?: number;
  port?: number;
  /** Where to write the kubeconfig (default: a new temp folder, removed by stop()). */
  kubeconfig?: string;
  /**
   * The name of the kubeconfig context, and of its cluster and user (`<name>-admin`) entries; default
   * `karp-drift-sandbox-<scenario>`. A function gets the API server's port, known only once it listens: `karp-drift
   * sandbox` names each sandbox apart by it, so two kubeconfigs merged with KUBECONFIG=a:b keep both.
   */
  context?: string | ((sandbox: { scenario: string; port: number }) => string);
  /** Tests: a clock that moves only when told, and no background passes (call simulator.pass()). */
  manualClock?: ManualClock;
  /**
   * The cluster's clock runs this many ms ahead of this machine's (behind when negative): its API server's `Date`
   * header, every time it and the simulated Karpenter write, and the budget schedules Karpenter reads. Tests: a CI
   * runner whose clock is off the cluster's.
   */
  clockSkewMs?: number;
  /**
   * Characters of stored objects' JSON the API server keeps serialized (default 32 Mi, a 5,000-node fleet's nodes and
   * NodeClaims). bench/: the `large` pods too (~100 Mi), so its reads measure the client, not the sandbox's
   * JSON.stringify (kube-apiserver's watch cache serves them from memory as well).
   */
  jsonCacheChars?: number;
  /** Karpenter's log lines. */
  log?: (line: string) => void;
  /**
   * `karp-drift sandbox --gitops-dir`: sync this directory of manifests as the GitOps tool does (the scenario's
   * `gitops`, with this `dir`; `gitopsTool`, else the scenario's tool, else Argo CD).
   */
  gitopsDir?: string;
  gitopsTool?: GitOpsTool;
}

export interface Sandbox {
  scenario: Scenario;
  kube: KubeApiServer;
  aws: AwsEndpoints;
  simulator: KarpenterSimulator;
  cluster: BuiltCluster;
  clock: SimClock;
  /** The GitOps stand-in, when the scenario or --gitops-dir has one: `sync()` syncs now, `dir` is what it syncs. */
  gitops?: GitOpsSyncer;
  kubeconfigPath: string;
  /** The kubeconfig's context (and cluster entry) name. */
  context: string;
  /** KUBECONFIG, AWS_ENDPOINT_URL_SSM/EC2/EKS, AWS_REGION and dummy credentials: what a shell or a child process needs. */
  env: Record<string, string>;
  /** One line: what is running. */
  summary: string;
  stop(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const scenario =
    typeof options.scenario === 'object' ? options.scenario : loadScenario(options.scenario ?? 'default');
  const speed = options.speed ?? scenario.speed;
  const clock = skewed(options.manualClock ?? scaledClock(speed, new Date()), options.clockSkewMs ?? 0);
  const release = karpenterVersionOf(scenario.karpenterVersion);
  const api = release.api;
  const aws = await startAwsEndpoints({ seed: scenario.seed, region: REGION, faultSeed: scenario.seed });
  let kube: KubeApiServer | undefined;
  let tempDir: string | undefined;
  let gitops: Awaited<ReturnType<typeof startGitOps>> | undefined;
  const gitopsWanted =
    options.gitopsDir !== undefined || scenario.gitops !== undefined
      ? {
          tool: options.gitopsTool ?? scenario.gitops?.tool ?? 'argocd',
          dir: options.gitopsDir ?? scenario.gitops?.dir,
          intervalSeconds: scenario.gitops?.intervalSeconds ?? 180,
        }
      : undefined;
  try {
    kube = await startKubeApiServer({
      port: options.port,
      version: eksVersion(scenario.controlPlaneVersion),
      crds: [...karpenterCrds(release), ...gitopsCrdsOf(gitopsWanted)],
      conversions: karpenterConversions(release),
      faultSeed: scenario.seed,
      ...(options.jsonCacheChars !== undefined ? { jsonCacheChars: options.jsonCacheChars } : {}),
      now: () => clock.wall(),
      clusterNow: () => clock.now(),
    });
    const cluster = buildCluster(scenario, { store: kube.store, catalog: aws.catalog, now: clock.wall() });
    const simulator = new KarpenterSimulator({
      store: kube.store,
      catalog: aws.catalog,
      clock,
      rng: seededRandom(scenario.seed, 'karpenter'),
      taken: cluster.taken,
      controlPlaneVersion: scenario.controlPlaneVersion,
      karpenterApi: api,
      hashVersions: hashVersions(release),
      budgets: budgetSupport(release),
      registrationHealth: registrationHealthRule(release) ?? 'none',
      nodeClassConditions: nodeClassConditions(release),
      timing: {
        ...scenario.timing,
        registerSeconds: [scenario.timing.registerSeconds[0], scenario.timing.registerSeconds[1]],
      },
      faults: {
        launchFailures: scenario.faults.launchFailures,
        neverRegisters: scenario.faults.neverRegisters,
        slowDrain: scenario.faults.slowDrain,
        hiddenImageIds: hiddenImages(scenario, cluster, aws),
        badAmi: badAmiFault(scenario, aws.catalog, cluster.nodeClasses),
      },
      log: options.log,
    });
    // Synced once before anyone looks, as the cluster a GitOps tool keeps is: the directory's objects as it says.
    gitops = gitopsWanted && (await startGitOps(kube.store, cluster, gitopsWanted, clock, options.log));
    simulator.pass(); // status.amis and conditions before anyone looks
    if (!options.manualClock) simulator.start();
    if (!options.manualClock) gitops?.syncer.start();
    const { apiErrors, watchDrops } = scenario.faults;
    // Injected after the cluster is built, so the scenario's own objects always get created.
    if (apiErrors) kube.faults.fail({ code: apiErrors.status, rate: apiErrors.rate });
    if (watchDrops) kube.faults.dropWatchesEvery(watchDrops.everySeconds);

    if (!options.kubeconfig) tempDir = await mkdtemp(join(tmpdir(), 'karp-drift-sandbox-'));
    const kubeconfigPath = options.kubeconfig ?? join(tempDir!, 'kubeconfig');
    const context =
      typeof options.context === 'function'
        ? options.context({ scenario: scenario.name, port: Number(new URL(kube.url).port) })
        : (options.context ?? `karp-drift-sandbox-${scenario.name}`);
    await writeKubeconfig(kubeconfigPath, { server: kube.url, caData: kube.caData, token: kube.token, clusterName: context });
    // EKS knows this cluster by the scenario's clusterName (the karpenter.sh/discovery tag of its classes, as on EKS):
    // what `--expect-cluster` names, at the API server's URL with the CA of the kubeconfig.
    aws.clusters.push({
      name: scenario.clusterName,
      region: REGION,
      endpoint: kube.url,
      caPem: kube.caData,
      version: scenario.controlPlaneVersion,
      createdAt: new Date(clock.wall().getTime() - CLUSTER_AGE_MS),
    });
    const env = {
      KUBECONFIG: kubeconfigPath,
      AWS_ENDPOINT_URL_SSM: aws.url,
      AWS_ENDPOINT_URL_EC2: aws.url,
      AWS_ENDPOINT_URL_EKS: aws.url,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'AKIASANDBOXEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'sandbox-secret-not-a-real-credential',
    };
    const nodes = kube.store.list('nodes').length;
    const summary =
      `sandbox "${scenario.name}": EKS cluster ${scenario.clusterName} (${scenario.controlPlaneVersion}, ${REGION}) at ${kube.url}, Karpenter ${scenario.karpenterVersion} (${api}) simulated at ${speed}x, ` +
      `${scenario.nodeClasses.length} EC2NodeClass(es), ${scenario.nodePools.length} NodePool(s), ${nodes} nodes` +
      (gitops ? `; ${gitops.summary}` : '');
    const server = kube;
    return {
      scenario,
      kube: server,
      aws,
      simulator,
      cluster,
      clock,
      ...(gitops ? { gitops: gitops.syncer } : {}),
      kubeconfigPath,
      context,
      env,
      summary,
      stop: async () => {
        simulator.stop();
        await gitops?.stop();
        await Promise.all([server.stop(), aws.stop()]);
        if (tempDir) await rm(tempDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await gitops?.stop();
    await Promise.all([kube?.stop(), aws.stop()]);
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
    throw err;
  }
}

function gitopsCrdsOf(wanted: { tool: GitOpsTool } | undefined) {
  return wanted ? gitopsCrds(wanted.tool) : [];
}

/** The same clock with its wall time (what the cluster reads and writes) moved by `skewMs`; simulated time untouched. */
function skewed(clock: SimClock, skewMs: number): SimClock {
  if (skewMs === 0) return clock;
  return {
    now: () => clock.now(),
    wall: () => new Date(clock.wall().getTime() + skewMs),
    realMs: (ms) => clock.realMs(ms),
    pass: () => clock.pass(),
  };
}

// amiNotFound: the images a class could be changed to exist in SSM and EC2 (karp-drift's lookups pass), but the
// simulated Karpenter's account cannot see them, as with an AMI that is not shared. Only the images the class's
// nodes run now stay visible.
function hiddenImages(scenario: Scenario, cluster: BuiltCluster, aws: AwsEndpoints): ReadonlySet<string> | undefined {
  const fault = scenario.faults.amiNotFound;
  if (!fault) return undefined;
  const nodeClass = cluster.nodeClasses.find((c) => c.name === fault.nodeClass);
  if (!nodeClass) return undefined;
  const keep = new Set(Object.values(nodeClass.imageIds));
  return new Set(
    aws.catalog.releases.filter((r) => r.family === nodeClass.family && !keep.has(r.imageId)).map((r) => r.imageId),
  );
}
