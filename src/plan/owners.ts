// Who else owns an EC2NodeClass's `spec.amiSelectorTerms`, from its managedFields, labels and annotations, and whether
// karp-drift may take the field. Server-side apply answers 409 Conflict when another manager owns a field we set to
// a different value; `force=true` takes it, but a GitOps or IaC tool then puts its own terms back on its next sync,
// and the nodes drift back (DOMAIN.md §8 requirement 7). Pure: `plan` and the apply code both use it.
import type { NodeClassView } from '../karpenter/views.js';
import type { GitOpsSourceRead } from '../apis/gitops-sources.js';
import { check, type Check } from './checks.js';
import { sourceLine } from './gitops-source.js';

export const FIELD_MANAGER = 'karp-drift';
export const TERMS_FIELD = 'spec.amiSelectorTerms';

export type OwnerKind = 'gitops' | 'iac' | 'applier';

export interface OwnerConflict {
  manager: string;
  kind: OwnerKind;
  field: typeof TERMS_FIELD;
  /** Argo CD, Flux, Helm, Terraform, Pulumi, Crossplane; absent for an applier karp-drift does not know. */
  tool?: string;
  /** Set when the tool was recognised by the tracking label or annotation it leaves, not by the manager's name. */
  trackedBy?: string;
}

export interface OwnerClassification {
  /** Managers karp-drift takes the field from with a forced apply: people with kubectl, and unknown Update clients. */
  takeOver: string[];
  /** Managers that would write the old terms back. */
  conflicts: OwnerConflict[];
}

// Field-manager names the tools use: Argo CD's argocd-controller (server-side sync), argocd-application-controller
// (client-side sync) and argocd-server (edits in its UI); Flux's controllers; Helm 3's `helm`; the Terraform
// kubernetes provider's `Terraform` (kubernetes_manifest) and terraform-provider-kubernetes; pulumi-kubernetes
// (often with a suffix); Crossplane's provider-kubernetes and composition functions.
const TOOLS: ReadonlyArray<{ tool: string; kind: Exclude<OwnerKind, 'applier'>; manager: RegExp }> = [
  { tool: 'Argo CD', kind: 'gitops', manager: /^argocd-/ },
  { tool: 'Flux', kind: 'gitops', manager: /^(kustomize-controller|helm-controller|source-controller|flux)$/ },
  { tool: 'Helm', kind: 'iac', manager: /^helm$/i },
  { tool: 'Terraform', kind: 'iac', manager: /^terraform/i },
  { tool: 'Pulumi', kind: 'iac', manager: /^pulumi/i },
  { tool: 'Crossplane', kind: 'iac', manager: /crossplane/i },
];

// What kubectl records: `kubectl` (apply --server-side), kubectl-client-side-apply, kubectl-edit, kubectl-patch,
// kubectl-create, kubectl-replace, ...; and before-first-apply, the owner of fields that predate any apply.
const PERSON = /^(kubectl(-[a-z-]+)?|before-first-apply)$/;

export function isPersonManager(manager: string): boolean {
  return PERSON.test(manager);
}

/** The GitOps or IaC tool whose tracking metadata the object carries, whoever wrote the field last. */
function trackingTool(
  view: Pick<NodeClassView, 'labels' | 'annotations'>,
): { tool: string; kind: OwnerKind; trackedBy: string } | undefined {
  // Argo CD 3.x tracks by annotation; 2.x by the app.kubernetes.io/instance label, which Helm charts set too, so
  // the label alone proves nothing.
  if (view.annotations['argocd.argoproj.io/tracking-id'] !== undefined) {
    const label =
      view.labels['app.kubernetes.io/instance'] !== undefined ? ' and label app.kubernetes.io/instance' : '';
    return { tool: 'Argo CD', kind: 'gitops', trackedBy: `annotation argocd.argoproj.io/tracking-id${label}` };
  }
  const flux = Object.keys(view.labels).find(
    (k) => k.startsWith('kustomize.toolkit.fluxcd.io/') || k.startsWith('helm.toolkit.fluxcd.io/'),
  );
  if (flux !== undefined) return { tool: 'Flux', kind: 'gitops', trackedBy: `label ${flux}` };
  if (view.labels['app.kubernetes.io/managed-by'] === 'Helm') {
    return { tool: 'Helm', kind: 'iac', trackedBy: 'label app.kubernetes.io/managed-by: Helm' };
  }
  return undefined;
}

export function classifyOwners(view: Pick<NodeClassView, 'owners' | 'labels' | 'annotations'>): OwnerClassification {
  const owners = view.owners.map((o) => ({ manager: o.manager, operation: o.operation, owns: o.ownsAmiSelectorTerms }));
  return classifyFieldOwners(owners, view, TERMS_FIELD);
}

/** Who else owns `field` of an object (any kind), and whether that manager would write it back. */
export function classifyFieldOwners<F extends string>(
  owners: ReadonlyArray<{ manager: string; operation: 'Apply' | 'Update'; owns: boolean }>,
  view: Pick<NodeClassView, 'labels' | 'annotations'>,
  field: F,
): { takeOver: string[]; conflicts: Array<Omit<OwnerConflict, 'field'> & { field: F }> } {
  const takeOver: string[] = [];
  const conflicts: Array<Omit<OwnerConflict, 'field'> & { field: F }> = [];
  const tracked = trackingTool(view);
  for (const owner of owners) {
    const { manager } = owner;
    if (!owner.owns || manager === FIELD_MANAGER) continue;
    if (takeOver.includes(manager) || conflicts.some((c) => c.manager === manager)) continue;
    const known = TOOLS.find((t) => t.manager.test(manager));
    if (known !== undefined) {
      conflicts.push({ manager, kind: known.kind, field, tool: known.tool });
    } else if (tracked !== undefined) {
      // Someone edited a tracked object by hand (or the tool applied under a generic name): the tool still wins.
      conflicts.push({ manager, field, ...tracked });
    } else if (isPersonManager(manager) || owner.operation === 'Update') {
      takeOver.push(manager);
    } else {
      conflicts.push({ manager, kind: 'applier', field });
    }
  }
  return { takeOver, conflicts };
}

/** What the owner checks know besides the owners: the flags, and where a GitOps owner syncs from. */
export interface OwnerContext {
  forceConflicts: boolean;
  /** `upgrade --apply-by git`: the owner's sync applies the change; karp-drift writes nothing to the field. */
  applyBy?: 'git';
  /** The Application or Kustomization that tracks the class, as read (absent: none tracks it, or not read). */
  source?: GitOpsSourceRead;
  /** The `karp-drift pin` commands that change the terms in that owner's files (plan/gitops-source.ts). */
  pin?: readonly string[];
}

/** The findings for a class the plan changes: conflicts refuse it (unless forced, or applied by Git); take-overs are noted. */
export function ownerChecks(name: string, owners: OwnerClassification, context: OwnerContext): Check[] {
  const { forceConflicts, applyBy, source, pin = [] } = context;
  const checks: Check[] = [];
  const sourceEvidence = source !== undefined ? [`source: ${sourceLine(source)}`] : [];
  for (const c of owners.conflicts) {
    const tool = c.tool ?? c.manager;
    const who =
      c.tool !== undefined
        ? `${c.tool} (field manager ${c.manager})`
        : `field manager ${c.manager}, which applies it with server-side apply`;
    const revert =
      c.tool !== undefined
        ? `${c.tool} would put the old terms back on its next sync`
        : 'it would put the old terms back the next time it applies';
    const evidence = [
      `managedFields: ${c.manager} owns ${c.field}`,
      ...(c.trackedBy !== undefined ? [`${c.tool ?? 'a tool'} tracks the object: ${c.trackedBy}`] : []),
      ...sourceEvidence,
    ];
    const where = pin.length > 0 ? `: ${pin.join('; ')}` : '';
    if (applyBy === 'git') {
      checks.push(
        check(
          'FIELD-OWNER-GITOPS',
          'info',
          `${c.field} of ec2nodeclass/${name} is owned by ${who}: with --apply-by git karp-drift writes nothing there; the change is merged where ${tool} reads it from, and the run waits for ${c.tool !== undefined ? 'its sync' : 'it'} to apply it`,
          evidence,
          `merge the change where ${tool} reads ${c.field} from${where}`,
        ),
      );
      continue;
    }
    const message = forceConflicts
      ? `${c.field} of ec2nodeclass/${name} is owned by ${who}: --force-conflicts takes the field, but ${revert} unless its source changes too`
      : `${c.field} of ec2nodeclass/${name} is owned by ${who}: ${revert}; change the AMIs in its source of truth instead`;
    checks.push(
      check(
        'FIELD-OWNER-GITOPS',
        forceConflicts ? 'warning' : 'error',
        message,
        evidence,
        forceConflicts
          ? undefined
          : `change ${c.field} where ${tool} reads it from${where}, and let upgrade --apply-by git pace the rollout ${c.tool !== undefined ? 'its sync' : 'that'} starts; or pass --force-conflicts to apply anyway`,
      ),
    );
  }
  if (applyBy === 'git') {
    if (owners.conflicts.length === 0) {
      const last = owners.takeOver.length > 0 ? ` (last set by ${owners.takeOver.join(', ')})` : '';
      checks.push(
        check(
          'APPLY-BY-GIT-UNSYNCED',
          'warning',
          `no GitOps or IaC tool owns spec.amiSelectorTerms of ec2nodeclass/${name}${last}: with --apply-by git the run waits for whoever applies the planned terms`,
          [],
          'apply the planned terms yourself (kubectl apply of the manifest you keep), or drop --apply-by git and let karp-drift apply them',
        ),
      );
    }
    return checks;
  }
  const people = owners.takeOver.filter(isPersonManager);
  const others = owners.takeOver.filter((m) => !isPersonManager(m));
  if (people.length > 0) {
    checks.push(
      check(
        'FIELD-OWNER-KUBECTL',
        'info',
        `spec.amiSelectorTerms of ec2nodeclass/${name} was last set by hand (${people.join(', ')}): karp-drift takes the field over with a forced server-side apply`,
        [],
        'update the manifest you apply from as well, or the next kubectl apply of it puts the old terms back',
      ),
    );
  }
  if (others.length > 0) {
    checks.push(
      check(
        'FIELD-OWNER-OTHER',
        'warning',
        `spec.amiSelectorTerms of ec2nodeclass/${name} was last written by ${others.join(', ')} (an update, not a known GitOps or IaC tool): karp-drift takes the field over with a forced server-side apply`,
        [],
        `if ${others.join(', ')} is a controller, it may write the old terms back: change its source too`,
      ),
    );
  }
  return checks;
}
