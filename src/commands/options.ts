// What each command takes, once its flags are parsed (cli/options.ts and cli/stage-options.ts turn flags into these,
// as kubectl's `WaitFlags.ToOptions()` makes a `WaitOptions`). In the commands' room, so that a command never imports
// the command line above it.
import type { AmiFamily } from '../ami/families.js';
import type { AmiSelection, KubernetesMinor } from '../ami/select.js';
import type { RenderPinMode } from '../manifests/render.js';
import type { PinMode } from '../plan/plan-options.js';
import type { HoldWith } from '../stages/hold-mechanism.js';
import type { StagedRequest, WindowRequest } from '../stages/request.js';

export type AmisOptions = AmiSelection;

export interface RenderOptions {
  kubernetes: KubernetesMinor;
  clusterName: string;
  role: string;
  family: AmiFamily;
  pin: RenderPinMode;
  release: string;
  /** --min-age: only releases at least this old (ami/release-policy.ts). */
  minAge?: { text: string; ms: number };
  /** Directory with the user's own ec2nodeclass.yaml and nodepool.yaml; undefined = the bundled templates/. */
  templates?: string;
  name: string;
}

export interface SandboxCommandOptions {
  scenario: string;
  speed?: number;
  port?: number;
  kubeconfig?: string;
  envOut?: string;
  /** --context: the kubeconfig context (and cluster and user entries) to write; default one named by scenario and port. */
  context?: string;
  /** --detach: serve from a background process, return once it serves. */
  detach?: boolean;
  /** The background process of --detach: its log file, removed with its folder when it shuts down cleanly. */
  detachedLog?: string;
  /** --gitops-dir (absolute) and --gitops-tool: the GitOps stand-in syncs that directory (sandbox/gitops/). */
  gitopsDir?: string;
  gitopsTool?: 'argocd' | 'flux';
}

export interface DemoOptions {
  scenario: string;
  speed?: number;
  timeoutMs: number;
  stallTimeoutMs: number;
  /** --canary/--waves/--soak/--hold-with: the demo's upgrade in stages. */
  staged?: StagedRequest;
  /** The upgrade the demo runs once the sandbox says its control plane's minor: `upgrade --to <minor> --yes` parsed. */
  upgradeTo: (minor: string) => UpgradeOptions;
}

export interface PlanOptions {
  kubernetes: KubernetesMinor;
  allowDowngrade?: boolean;
  allowDeprecated?: boolean;
  replaceCustomAmis?: boolean;
  /** Empty: every EC2NodeClass. */
  nodeClasses: string[];
  /** latest, latest~N, or a concrete release. */
  release: string;
  /** --min-age: only releases at least this old (ami/release-policy.ts). */
  minAge?: { text: string; ms: number };
  pin: PinMode;
  /** plan: preview the plan `upgrade --force-conflicts` would make (a GitOps/IaC owner is a warning, not an error). */
  forceConflicts?: boolean;
  /** --canary/--waves/--soak/--hold-with (cli/stage-options.ts): a staged rollout. */
  staged?: StagedRequest;
  /** --lock-namespace: where the cluster lock's Lease lives (whether a live run paces karp-drift's holds). */
  lockNamespace?: string;
  /** --amis-file: pin exactly the AMIs this `amis -o json` or `plan -o json` document records, instead of SSM's. */
  amisFile?: string;
  /**
   * --from-context/--from-kubeconfig: pin exactly the AMIs that cluster's EC2NodeClasses pin and its nodes run. The
   * kubeconfig defaults to this cluster's; the context to that kubeconfig's current-context.
   */
  fromCluster?: { context?: string; kubeconfig?: string };
  /**
   * --apply-by git: the GitOps (or IaC) tool that owns the classes applies the terms from the files a person merges;
   * karp-drift writes its holds and paces the rollout the sync starts, and applies nothing to the classes.
   */
  applyBy?: 'git';
}

/** `pin`: the files to change, and what to write in them. */
export interface PinOptions {
  /** Files and directories: manifests, kustomizations, Helm values files. */
  paths: string[];
  /** --to and the other AMI flags, as plan takes them; absent: `--window` alone (only the budgets are written). */
  plan?: PlanOptions;
  /** --values-path a.b.c: where a Helm values file holds the terms (a list) or the map with amiSelectorTerms. */
  valuesPath?: string;
  /** --check: write nothing; exit 1 when the files do not pin what the policy picks now. */
  check: boolean;
  /** --window/--exclude: the windows' budgets on every NodePool in the files. */
  windows?: WindowRequest;
  /** --pr-body: where to write the pull request's Markdown. */
  prBody?: string;
  /** --tfvars: where to write the Terraform variables document, and the variable's name. */
  tfvars?: { path: string; variable: string };
  /** false with --no-cluster: never read a cluster, even with a kubeconfig context. */
  cluster: boolean;
}

/** `upgrade --templates`: render the EC2NodeClass and NodePool templates with the pinned AMIs and apply them whole. */
export interface UpgradeTemplates {
  dir?: string;
  clusterName: string;
  role: string;
  family: AmiFamily;
  name: string;
  /** --accept-template-drift: apply template changes Karpenter hashes (or NodePool requirements), re-rolling nodes. */
  acceptTemplateDrift: boolean;
  /** --allow-create: under --yes, create the objects the templates name when absent (a prompt asks otherwise). */
  allowCreate: boolean;
}

/** What upgrade and rollback share: confirm, apply, then follow the rollout. */
export interface ApplyOptions {
  yes: boolean;
  dryRun: boolean;
  wait: boolean;
  timeoutMs: number;
  stallTimeoutMs: number;
  /** --lock-namespace (cli/stage-options.ts): where the cluster lock's Lease lives. */
  lockNamespace?: string;
}

export interface UpgradeOptions extends PlanOptions, ApplyOptions {
  templates?: UpgradeTemplates;
  forceConflicts: boolean;
  /** --resume-halted: the user looked at what halted the rollout, and it may go on (commands/resume-consent.ts). */
  resumeHalted?: boolean;
  /** --sync-timeout, with --apply-by git: how long to wait for the planned terms to arrive (the change merged and synced). */
  syncTimeoutMs?: number;
}

export interface StatusOptions {
  nodeClasses: string[];
  watch: boolean;
  /** Where the cluster lock's Lease is: whether a live run paces the holds shown. */
  lockNamespace: string;
}

export interface WaitOptions {
  nodeClasses: string[];
  timeoutMs: number;
  stallTimeoutMs: number;
  /** --lock-namespace: where to look for the run that paces a staged rollout. */
  lockNamespace: string;
}

export interface RollbackOptions extends ApplyOptions {
  nodeClasses: string[];
  /** --canary/--waves/--soak/--hold-with and the gates (cli/stage-options.ts): a staged rollback; absent, the fast one. */
  staged?: StagedRequest;
  /** --resume-halted: the user looked at what halted this rollback, and it may go on (commands/rollback-consent.ts). */
  resumeHalted?: boolean;
  /** --sync-timeout: how long to wait for a class upgraded by `--apply-by git` to get its previous terms back from Git. */
  syncTimeoutMs?: number;
}

/** `history [run] [--html <file>]`. */
export interface HistoryOptions {
  /** A run id, or the start of one as the list shows it. */
  run?: string;
  /** Write that run's page here instead of printing it. */
  html?: string;
  /** --lock-namespace: where the records are, beside the lock. */
  lockNamespace: string;
}

export interface LockOptions {
  /** --lock-namespace: where the cluster lock's Lease lives. */
  lockNamespace: string;
}

export interface PauseOptions extends LockOptions {
  /** --nodepool (repeatable); empty: every NodePool. */
  nodePools: string[];
  holdWith: HoldWith;
  forceConflicts: boolean;
  /** --held: only the NodePools karp-drift already holds (a staged rollout's, at whatever its wave allowed). */
  held: boolean;
}

export type ResumeOptions = LockOptions & { nodePools: string[] };
