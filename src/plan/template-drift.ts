// The checks on an `upgrade --templates` diff (manifests/diff.ts): a template that changes more than the AMI
// selection must not re-roll nodes by surprise. A change Karpenter hashes, or one to a NodePool's requirements, is an
// error (exit 3, nothing changed) unless --accept-template-drift; selector changes that may drift are a warning;
// changes that drift nothing are listed as info. New objects are created and drift nothing.
import { flowValue, listDelta, type DriftReason, type FieldChange, type ManifestDiff, type ObjectDiff } from '../manifests/diff.js';
import type { Requirement, TemplateClaim } from '../karpenter/views.js';
import { plural } from '../text/words.js';
import { check, type Check } from './checks.js';
import { labelsSatisfy } from './requirements.js';

export interface TemplateDriftInput {
  diff: ManifestDiff;
  nodeClaims: readonly TemplateClaim[];
  /** The AMIs being pinned: nodes already on them are the ones a template change would re-roll for nothing. */
  targetImageIds: readonly string[];
  /** The rendered NodePool's requirements, which `RequirementsDrifted` compares NodeClaim labels with. */
  requirements: readonly Requirement[];
  /** --accept-template-drift */
  accepted: boolean;
}

export const ACCEPT_FLAG = '--accept-template-drift';

export function templateDriftChecks(input: TemplateDriftInput): Check[] {
  const { nodeClass, nodePool } = input.diff;
  return [
    ...drift(nodeClass, 'NodeClassDrift', input),
    ...drift(nodePool, 'NodePoolDrifted', input),
    ...drift(nodePool, 'RequirementsDrifted', input),
    ...selectorChecks(nodeClass),
    ...unhashedChecks(nodeClass),
    ...unhashedChecks(nodePool),
  ];
}

const ref = (o: ObjectDiff) => `${o.kind.toLowerCase()}/${o.name}`;
function change(c: FieldChange): string {
  if (c.op === 'add') return `${c.path}: (unset) → ${flowValue(c.after)}`;
  if (c.op === 'remove') return `${c.path}: ${flowValue(c.before)} → (removed)`;
  if (Array.isArray(c.before) && Array.isArray(c.after)) {
    const { removed, added } = listDelta(c.before, c.after);
    const items = [...removed.map((v) => `- ${flowValue(v)}`), ...added.map((v) => `+ ${flowValue(v)}`)];
    return `${c.path}: ${items.join('; ')}`;
  }
  return `${c.path}: ${flowValue(c.before)} → ${flowValue(c.after)}`;
}
const paths = (changes: readonly FieldChange[]) => {
  const all = changes.map((c) => c.path);
  return all.length === 1 ? all[0]! : `${all.slice(0, -1).join(', ')} and ${all.at(-1)!}`;
};

// Which live NodeClaims the reason reaches: the class's for NodeClassDrift, the pool's for NodePoolDrifted, and the
// pool's whose labels no longer satisfy the rendered requirements for RequirementsDrifted.
function reached(o: ObjectDiff, reason: DriftReason, input: TemplateDriftInput): TemplateClaim[] {
  const live = input.nodeClaims.filter((c) => !c.deleting);
  if (reason === 'NodeClassDrift') return live.filter((c) => c.nodeClass === o.name);
  const pool = live.filter((c) => c.nodePool === o.name);
  return reason === 'NodePoolDrifted' ? pool : pool.filter((c) => !labelsSatisfy(input.requirements, c.labels));
}

const WHAT: Partial<Record<DriftReason, string>> = {
  NodeClassDrift: ', which Karpenter hashes: every NodeClaim of the class would drift',
  NodePoolDrifted: ', which Karpenter hashes: every NodeClaim of the NodePool would drift',
  RequirementsDrifted: ': the NodeClaims whose labels no longer satisfy them would drift',
};

function drift(o: ObjectDiff, reason: DriftReason, input: TemplateDriftInput): Check[] {
  const changes = o.changes.filter((c) => c.reason === reason);
  if (changes.length === 0) return [];
  const claims = reached(o, reason, input);
  const onTarget = claims.filter((c) => c.imageId !== undefined && input.targetImageIds.includes(c.imageId)).length;
  const count = `${plural(claims.length, 'node')}, ${onTarget} of them already on the target AMI`;
  return [
    check(
      'TEMPLATE-DRIFT',
      input.accepted ? 'warning' : 'error',
      `${ref(o)}: the templates change ${paths(changes)}${WHAT[reason]!} (${reason}): ${count}`,
      changes.map(change),
      input.accepted
        ? `accepted with ${ACCEPT_FLAG}: Karpenter replaces these nodes after the apply, AMI or not`
        : `make the templates match the live ${o.kind} (kubectl get ${ref(o)} -o yaml), or pass ${ACCEPT_FLAG} to apply them and let Karpenter replace those nodes`,
    ),
  ];
}

function selectorChecks(o: ObjectDiff): Check[] {
  const changes = o.changes.filter((c) => c.class === 'selectors');
  if (changes.length === 0) return [];
  const reasons = [...new Set(changes.map((c) => c.reason))].join(', ');
  return [
    check(
      'TEMPLATE-SELECTORS',
      'warning',
      `${ref(o)}: the templates change ${paths(changes)}: Karpenter does not hash them, but its nodes drift (${reasons}) if the new terms select other subnets, security groups or capacity reservations than those they run in`,
      changes.map(change),
      `after a --dry-run, compare what the class resolves now (kubectl get ${ref(o)} -o jsonpath='{.status.subnets} {.status.securityGroups}') with what the new terms select, or keep the live terms in the template`,
    ),
  ];
}

function unhashedChecks(o: ObjectDiff): Check[] {
  const changes = o.changes.filter((c) => c.class === 'behavioural');
  if (changes.length === 0) return [];
  return [check('TEMPLATE-CHANGES', 'info', `${ref(o)}: the templates also change ${paths(changes)}, which drift no node`, changes.map(change))];
}
