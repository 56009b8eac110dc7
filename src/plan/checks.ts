// Preflight findings with stable codes, as eksup gives every finding a code (finding.rs): what is wrong, the evidence,
// and what to do next. Any `error` blocks the plan (exit 3); warnings and info are printed and the plan goes on.
// Checks on one EC2NodeClass live here; versions.ts gates versions, owners.ts field ownership, blockers.ts drift.
import { FAMILIES, type AmiFamily, type Arch } from '../ami/families.js';
import type { ResolvedAmi } from '../ami/verify.js';
import type { Inventory, NodeClassView } from '../karpenter/views.js';
import type { AmiNeed } from './targets.js';
import type { PinMode } from './plan-options.js';

export const CHECK_CODES = [
  'NODECLASS-NOT-FOUND',
  'FAMILY-UNKNOWN',
  'TARGET-NEWER-THAN-CONTROL-PLANE',
  'TARGET-TOO-OLD',
  'DOWNGRADE',
  'VERSION-SKEW',
  'ALIAS-FOLLOWS-CONTROL-PLANE',
  'ALIAS-NEEDS-KARPENTER-V1',
  'AL2-UNSUPPORTED',
  'WINDOWS2025-UNSUPPORTED',
  'RELEASE-NOT-FOR-FAMILY',
  'ALIAS-NOT-PINNABLE',
  'ALIAS-RELEASE-MIXED',
  'AMI-MISSING',
  'AMI-DEPRECATED',
  'MIXED-GPU-ID-PIN',
  'NAME-AMBIGUOUS',
  'CUSTOM-AMI',
  'FIELD-OWNER-GITOPS',
  'FIELD-OWNER-KUBECTL',
  'FIELD-OWNER-OTHER',
  'APPLY-BY-GIT-UNSYNCED',
  'NODECLASS-NOT-READY',
  'ALREADY-PINNED',
  'LATEST-ALIAS',
  'SELECTOR-REPLACED',
  'BUDGET-INVALID',
  'BUDGET-BLOCKS-DRIFT',
  'BUDGET-EXHAUSTED',
  'BUDGET-SCHEDULED-ONLY',
  'DRIFT-HELD',
  'PDB-BLOCKS',
  'PDB-MULTIPLE',
  'DO-NOT-DISRUPT',
  'DO-NOT-DISRUPT-IGNORED',
  'POD-PINNED',
] as const;
// `upgrade --templates` only (plan/template-drift.ts): what the rendered objects change besides the AMI selection.
export const TEMPLATE_CHECK_CODES = ['TEMPLATE-DRIFT', 'TEMPLATE-SELECTORS', 'TEMPLATE-CHANGES'] as const;
// `--canary` only (gates/coverage.ts): a canary that can only delete empty nodes tests nothing.
export const STAGED_CHECK_CODES = ['CANARY-EMPTY'] as const;
export type CheckCode =
  | (typeof CHECK_CODES)[number]
  | (typeof TEMPLATE_CHECK_CODES)[number]
  | (typeof STAGED_CHECK_CODES)[number];

export type CheckLevel = 'error' | 'warning' | 'info';
export const LEVELS: readonly CheckLevel[] = ['error', 'warning', 'info'];

export interface Check {
  code: CheckCode;
  level: CheckLevel;
  message: string;
  evidence: string[];
  /** Evidence lines left out after the first ten (the last line shown says "… and N more"). */
  evidenceOmitted?: number;
  next?: string;
}

export function check(
  code: CheckCode,
  level: CheckLevel,
  message: string,
  evidence: string[] = [],
  next?: string,
): Check {
  return { code, level, message, evidence, ...(next !== undefined ? { next } : {}) };
}

const FAMILY_NEXT: Partial<Record<AmiFamily, string>> = {
  al2: 'move the workloads to an AL2023 or Bottlerocket EC2NodeClass (a new class, then point the NodePools at it), or choose --to 1.32',
  windows2025: 'choose --to 1.35 or later, or use Windows2022',
};

/** Refusals that leave a class without a plan: unsupported family, release or pin form. */
export function familyChecks(
  name: string,
  family: AmiFamily,
  versionProblem: string | undefined,
  releaseProblem: { message: string; hint?: string } | undefined,
  pin: PinMode,
): Check[] {
  if (versionProblem !== undefined) {
    const code = family === 'al2' ? 'AL2-UNSUPPORTED' : 'WINDOWS2025-UNSUPPORTED';
    return [check(code, 'error', `ec2nodeclass/${name}: ${versionProblem}`, [], FAMILY_NEXT[family])];
  }
  if (releaseProblem !== undefined) {
    return [
      check(
        'RELEASE-NOT-FOR-FAMILY',
        'error',
        `ec2nodeclass/${name}: ${releaseProblem.message}`,
        [],
        `${releaseProblem.hint ?? 'pass a --release of this family'}, or plan the other families with --nodeclass`,
      ),
    ];
  }
  if (pin === 'alias' && !FAMILIES[family].pinnable) {
    return [
      check(
        'ALIAS-NOT-PINNABLE',
        'error',
        `ec2nodeclass/${name}: --pin alias cannot pin ${family}: Karpenter accepts Windows aliases only as ${family}@latest, which floats`,
        [],
        `use --pin id to pin the ${family} AMI by ID`,
      ),
    ];
  }
  return [];
}

/** Where promoted AMIs came from, for a check's next step. */
export interface Promoted {
  flag: '--amis-file' | '--from-context';
  /** The file's path, or the source's context. */
  value: string;
}

export function missingAmiCheck(
  name: string,
  family: AmiFamily,
  need: AmiNeed,
  to: string,
  release: string,
  found?: ResolvedAmi,
  /** Where the AMI was promoted from: --amis-file and its path, or --from-context and the source's context. */
  promoted?: Promoted,
): Check {
  const what = `${family} ${need.arch} ${need.variant}`;
  const exists = FAMILIES[family].variants[need.arch].includes(need.variant);
  const message = !exists
    ? `ec2nodeclass/${name} needs an AMI for ${need.arch} ${need.variant} instances, and ${family} publishes none`
    : found !== undefined
      ? `the ${what} AMI for Kubernetes ${to} (${found.id}) is not usable: ${found.problems.join('; ') || `state ${found.state}`}`
      : `no ${what} AMI is published for Kubernetes ${to} (release ${release}) in SSM, and ec2nodeclass/${name} needs one`;
  const next = promoted !== undefined && exists
    ? `the tested AMI cannot be pinned here: test a release that is still published where it was tested, and promote ${promoted.flag === '--amis-file' ? 'its file' : 'it'}; or plan without ${promoted.flag} ${promoted.value} to resolve from SSM`
    : exists
    ? `check it with: karp-drift amis --to ${to} --family ${family} --arch ${need.arch} --variant ${need.variant} --release ${release}`
    : `move those instances to a class of a family that publishes ${need.arch} ${need.variant} AMIs, or narrow the NodePool's requirements`;
  return check(
    'AMI-MISSING',
    'error',
    message,
    need.from.map((f) => `needed by ${f}`),
    next,
  );
}

// An AMI already deprecated is refused unless --allow-deprecated: EC2 hides it from new searches and AWS stops
// patching it. One that will be deprecated within 30 days is only a warning.
export function deprecatedAmiCheck(name: string, ami: ResolvedAmi, allowDeprecated: boolean, now: Date, promoted?: Promoted): Check {
  const already = ami.deprecationTime !== undefined && Date.parse(ami.deprecationTime) <= now.getTime();
  const refused = already && !allowDeprecated;
  return check(
    'AMI-DEPRECATED',
    refused ? 'error' : 'warning',
    `ec2nodeclass/${name}: the target ${ami.family} ${ami.arch} ${ami.variant} AMI ${ami.id} (${ami.name}): ${ami.problems.join('; ') || 'deprecated'}`,
    [],
    promoted !== undefined
      ? refused
        ? `test and promote a newer release than ${promoted.value} ${promoted.flag === '--amis-file' ? 'records' : 'runs'}, or pass --allow-deprecated to pin it anyway`
        : 'Karpenter can still launch it; test and promote a newer release soon'
      : refused
        ? 'pin a newer --release, or pass --allow-deprecated to pin it anyway'
        : 'Karpenter can still launch it; pin a newer --release soon',
  );
}

/** Id terms carry no variant: two AMIs for one arch leave Karpenter to keep the newest for every instance of it. */
export function mixedIdPinCheck(
  name: string,
  targets: ReadonlyArray<{ arch: Arch; variant: string; id: string; name: string }>,
  pin: 'id' | 'name' = 'id',
): Check[] {
  const checks: Check[] = [];
  for (const arch of new Set(targets.map((t) => t.arch))) {
    const here = targets.filter((t) => t.arch === arch);
    if (new Set(here.map((t) => t.id)).size < 2) continue;
    const variants = here.map((t) => t.variant).join(' and ');
    checks.push(
      check(
        'MIXED-GPU-ID-PIN',
        'error',
        `ec2nodeclass/${name} needs ${variants} AMIs for ${arch}, which --pin ${pin} cannot express: Karpenter knows only the architecture of ${pin === 'id' ? 'an id' : 'a name'} term and keeps one AMI per architecture (the newest), so every ${arch} node would launch from the same one`,
        here.map((t) => `${t.arch} ${t.variant}: ${t.id} (${t.name})`),
        `use --pin alias (an alias keeps the variant), or split the class: one EC2NodeClass per variant, with NodePools that select GPU instances by karpenter.k8s.aws/instance-gpu-count`,
      ),
    );
  }
  return checks;
}

export function notReadyCheck(view: NodeClassView): Check[] {
  const c = view.conditions.AMIsReady;
  if (c?.status !== 'False') return [];
  return [
    check(
      'NODECLASS-NOT-READY',
      'warning',
      `ec2nodeclass/${view.name}: AMIsReady is False (${c.reason}): Karpenter neither drifts nor launches nodes for the class until its AMIs resolve`,
      [c.message].filter((m) => m !== ''),
      'the new terms replace the failing ones; after the apply, check that AMIsReady turns True',
    ),
  ];
}

/** Classes outside the plan that float on `@latest`: they re-drift on their own when AWS publishes an AMI. */
export function latestAliasChecks(inventory: Inventory, planned: ReadonlySet<string>): Check[] {
  return inventory.nodeClasses
    .filter((c) => !planned.has(c.name))
    .flatMap((c) => c.amiSelectorTerms.filter((t) => t.alias?.endsWith('@latest')).map((t) => ({ c, alias: t.alias! })))
    .map(({ c, alias }) =>
      check(
        'LATEST-ALIAS',
        'info',
        `ec2nodeclass/${c.name} selects its AMIs with alias ${alias}, which floats: its nodes drift on their own whenever AWS publishes a new AMI or the control plane is upgraded`,
        [],
        `pin it too: karp-drift plan --nodeclass ${c.name}`,
      ),
    );
}
