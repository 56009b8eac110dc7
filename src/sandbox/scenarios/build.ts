// Creates a scenario's starting cluster in the sandbox's store, in the order and with the field managers of the
// people and controllers who made it: a platform team's EC2NodeClasses and NodePools, Karpenter's NodeClaims, the
// kubelets' Nodes, the workload controllers' pods and the PDBs applied with kubectl. Nothing is drifted yet;
// EC2NodeClass status is the simulated Karpenter's to write.
import { UsageError } from '../../errors.js';
import type { AmiCatalog } from '../aws/types.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import { groupVersion } from '../kube-api/resources.js';
import { gitopsApply, kubectlApply, SANDBOX_OWNERS } from './field-managers.js';
import { classImages, ec2NodeClassManifest, nodePoolManifest, type ClassImages } from './node-classes.js';
import { buildPoolNodes, type BuiltNode, type NodeBuildContext } from './nodes.js';
import { seededRandom } from './random.js';
import type { Scenario, ScenarioNodeClass } from './schema.js';
import type { KubeObject } from '../kube-api/types.js';
import { workloadRequests } from './requests.js';
import { hashVersions, karpenterApiOf, karpenterVersionOf, type KarpenterApi } from './versions.js';
import { buildPdb, buildWorkloadPods, ensureNamespace } from './workloads.js';

/** A class as built: the AMIs its nodes run (imageIds: what their NodeClaims' status.imageID says), per arch. */
export type BuiltNodeClass = Omit<ClassImages, 'releases'>;

export interface BuiltNodePool {
  name: string;
  uid: string;
  nodeClass: string;
  nodes: BuiltNode[];
}

export interface BuiltCluster {
  karpenterApi: KarpenterApi;
  nodeClasses: BuiltNodeClass[];
  nodePools: BuiltNodePool[];
  pods: number;
  /** NodeClaim names, node DNS names and instance IDs in use: pass them to names.ts for replacements. */
  taken: NodeBuildContext['taken'];
  /** The manifests of the classes and pools a GitOps tool applied (fieldManager argocd or flux), as it applied them. */
  gitopsManifests: KubeObject[];
}

export interface BuildOptions {
  store: KubeStore;
  catalog: AmiCatalog;
  /** Condition and start times; creationTimestamps come from the store's clock. */
  now?: Date;
}

/**
 * Builds the scenario into `store`, which must serve the Karpenter CRDs of the scenario's API
 * (`loadKarpenterCrds(karpenterApiOf(scenario.karpenterVersion))`). PodDisruptionBudget status is computed by the
 * store in a microtask, so it is there once the caller next awaits.
 */
export function buildCluster(scenario: Scenario, options: BuildOptions): BuiltCluster {
  const { store, catalog } = options;
  const now = options.now ?? store.now();
  const api = karpenterApiOf(scenario.karpenterVersion);
  const apis = {
    nodeClass: servedVersion(store, 'ec2nodeclasses.karpenter.k8s.aws', api),
    nodePool: servedVersion(store, 'nodepools.karpenter.sh', api),
  };
  servedVersion(store, 'nodeclaims.karpenter.sh', api);

  const images = new Map<string, ClassImages>();
  const gitopsManifests: KubeObject[] = [];
  // A GitOps tool's server-side apply, or a person's kubectl apply.
  const applyAs = (manager: ScenarioNodeClass['fieldManager'], resource: string, manifest: KubeObject): KubeObject => {
    if (manager === 'kubectl') return kubectlApply(store, resource, manifest);
    gitopsManifests.push(manifest);
    return gitopsApply(store, resource, manifest, SANDBOX_OWNERS[manager]);
  };
  scenario.nodeClasses.forEach((c, i) => {
    const resolved = classImages(scenario, i, catalog);
    images.set(c.name, resolved);
    applyAs(c.fieldManager, 'ec2nodeclasses.karpenter.k8s.aws', ec2NodeClassManifest(scenario, c, resolved, apis.nodeClass));
  });

  const ctx: NodeBuildContext = {
    store,
    rng: seededRandom(scenario.seed, 'nodes'),
    now,
    taken: { names: new Set(), dnsNames: new Set(), instanceIds: new Set() },
    hashVersions: hashVersions(karpenterVersionOf(scenario.karpenterVersion)),
  };
  const nodePools = scenario.nodePools.map((pool): BuiltNodePool => {
    const poolImages = images.get(pool.nodeClass) as ClassImages;
    const manifest = nodePoolManifest(pool, poolImages.family, api, apis.nodePool);
    const created = applyAs(pool.fieldManager, 'nodepools.karpenter.sh', manifest);
    const nodes = buildPoolNodes(ctx, pool, created, poolImages);
    return { name: pool.name, uid: created.metadata.uid ?? '', nodeClass: pool.nodeClass, nodes };
  });

  const poolNodes = new Map(nodePools.map((p) => [p.name, p.nodes]));
  const requests = workloadRequests(store, scenario, poolNodes);
  let pods = 0;
  scenario.workloads.forEach((w, i) => {
    ensureNamespace(store, w.namespace);
    buildPdb(store, w);
    pods += buildWorkloadPods(store, scenario.seed, w, poolNodes.get(w.nodePool) ?? [], now, ctx.taken.names, requests[i]!);
  });

  return {
    karpenterApi: api,
    nodeClasses: [...images.values()].map(({ releases: _releases, ...c }) => c),
    nodePools,
    pods,
    taken: ctx.taken,
    gitopsManifests,
  };
}

// The store stores custom resources in their CRD's storage version: v1 for Karpenter 1.x, v1beta1 for 0.32–0.37.
function servedVersion(store: KubeStore, resource: string, api: KarpenterApi): string {
  let info;
  try {
    info = store.info(resource);
  } catch (err) {
    throw new UsageError(`the sandbox store serves no ${resource}: store the Karpenter ${api} CRDs first`, {
      cause: err,
    });
  }
  if (info.version !== api) {
    throw new UsageError(
      `the scenario installs the Karpenter ${api} API, but the store holds ${resource} as ${info.version}: load loadKarpenterCrds('${api}')`,
    );
  }
  return groupVersion(info);
}
