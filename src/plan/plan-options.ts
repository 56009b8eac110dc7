// What a plan is asked for (the flags of plan and upgrade, parsed), below plan.ts and the per-class planning of pin.ts.
import type { GitOpsSourceRead } from '../apis/gitops-sources.js';
import type { RunLock } from '../apis/hold-state.js';
import type { RenderPinMode } from '../manifests/render.js';
import type { PlanSource } from './promotion.js';

/** How the AMIs are pinned: `id` terms, a versioned `alias`, or exact `name` terms with their owner (plan, upgrade). */
export type PinMode = RenderPinMode | 'name';

export interface PlanOptions {
  /** Kubernetes minor of the target AMIs, e.g. "1.31". */
  to: string;
  /** EC2NodeClasses to plan; all when absent or empty. */
  nodeClasses?: string[];
  pin: PinMode;
  /** As asked: `latest`, `latest~N` or a concrete release; alias pins always name the resolved concrete release. */
  release: string;
  /** --min-age as written (7d): with `release`, the policy the source records what it chose. */
  minAge?: string;
  fieldManager: 'karp-drift';
  forceConflicts?: boolean;
  /** Let --to take nodes to an older minor than they run (otherwise the DOWNGRADE check is an error). */
  allowDowngrade?: boolean;
  /** Pin an AMI that is already deprecated (otherwise AMI-DEPRECATED is an error). */
  allowDeprecated?: boolean;
  /** Replace a class's custom (not EKS-optimized) AMIs (otherwise CUSTOM-AMI is an error). */
  replaceCustomAmis?: boolean;
  /** Where the AMIs came from: SSM (the default), or a promoted `--amis-file`. */
  source?: PlanSource;
  /** The cluster lock as read, when anything is held: whether a live run paces karp-drift's holds. */
  lock?: RunLock;
  /**
   * `pin` without a cluster: the inventory is files only, so the checks that judge the control plane and the nodes
   * (versions.ts `CLUSTER_CHECKS`) are not made.
   */
  withoutCluster?: boolean;
  /** `upgrade --apply-by git` (and `plan --apply-by git`): the owner's sync applies the terms, not karp-drift. */
  applyBy?: 'git';
  /** The Applications and Kustomizations that track classes in scope, as read, by ownerKey (apis/gitops-sources.ts). */
  gitopsSources?: ReadonlyMap<string, GitOpsSourceRead>;
  /** The flags a `karp-drift pin` of the owner's files takes to pin what this plan pins (`--to 1.31 --release …`). */
  pinFlags?: string;
  /** Set by plan() from its `now`, for the checks that judge time. */
  now?: Date;
}
