// Pure: a staged rollout under way keeps the AMIs it started with. A windowed rollout spans days, and EKS AMIs ship
// weekly: were a re-run of `upgrade --to 1.30 --release latest~1 --min-age 7d` to resolve again, a release that came of
// age between two windows would be pinned, every node already replaced would drift again, and the rollout would
// restart from the canary (and, longer than a week of windows, never finish).
//
// A rollout to `--to` is under way while karp-drift's budget hold records for that target stand on NodePools in scope
// (apis/budget-hold.ts); the first record's `since` is when it began (its holds go on before its apply). Each
// EC2NodeClass in scope that karp-drift pinned since then (its server-side apply's managedFields time) and whose
// status.amis are AMIs of `--to` of one release was pinned by this rollout: its family is resolved at that release
// again, so the plan has nothing to change for it. Classes pinned before the rollout began (an earlier rollout to the
// same minor) resolve as before, and so does a class whose NodePools karp-drift holds node by node: it is kept when
// the rollout pinned it, whatever holds its nodes. Node holds record no target and no time, so a rollout held by node
// holds alone (Karpenter v1beta1, every NodePool's budgets owned by GitOps) cannot be told and is resolved anew.
//
// Only a moving release (`latest`, `latest~N`, `--min-age`) is kept to: a release named outright is a deliberate
// choice, honoured as given (that is how a rollout moves to a newer release on purpose), and promoted AMIs
// (--amis-file, --from-context) are pinned exactly as given.
import { FAMILIES, type AmiFamily } from '../ami/families.js';
import { compareReleases } from '../ami/release-policy.js';
import { imageNameFields } from '../ami/verify.js';
import { decodeHoldRecord, HOLD_ANNOTATION } from '../apis/budget-hold.js';
import type { KarpenterObjects, NodeClassView } from '../karpenter/views.js';
import { nodeClassesInScope, nodeClassFamily } from './targets.js';
import { inOrder } from '../text/order.js';

/** One family a staged rollout under way keeps at the release it started with. */
export interface KeptRelease {
  family: AmiFamily;
  release: string;
  /** The EC2NodeClasses the rollout pinned at that release, by name. */
  nodeClasses: string[];
}

/** As the plan's source records it (`source.kept`): with what the release policy, or `latest`, would pin now. */
export interface KeptSource extends KeptRelease {
  /** The release the policy (or `latest`) chooses now, maybe the same; null when it could not be told. */
  newer: string | null;
}

export interface KeepRequest {
  to: string;
  /** latest, latest~N, or a release named outright. */
  release: string;
  /** A staged rollout (--canary/--waves/--window): only it has holds to go on from. */
  staged: boolean;
  /** The field manager karp-drift applies EC2NodeClasses with. */
  fieldManager: string;
  nodeClasses?: readonly string[];
}

/** `latest` and `latest~N` (with or without --min-age) choose anew on every run; a named release never moves. */
export const movingRelease = (release: string): boolean => release === 'latest' || /^latest~\d+$/.test(release);

/** The families to resolve at the release the rollout under way pinned; the newest when its classes disagree. */
export function keptReleases(inventory: KarpenterObjects, request: KeepRequest): KeptRelease[] {
  if (!request.staged || !movingRelease(request.release)) return [];
  const { nodeClasses } = nodeClassesInScope(inventory, request.nodeClasses);
  const began = rolloutBegan(inventory, nodeClasses, request.to);
  if (began === undefined) return [];
  const found = new Map<AmiFamily, Map<string, string[]>>();
  for (const view of nodeClasses) {
    const { family } = nodeClassFamily(view);
    if (family === undefined || !FAMILIES[family].pinnable) continue;
    const pinned = pinnedAt(view, request.fieldManager);
    if (pinned === undefined || pinned < began - CLOCK_SKEW_MS) continue;
    const release = pinnedRelease(family, view.statusAmis, request.to);
    if (release === undefined) continue;
    const byRelease = found.get(family) ?? new Map<string, string[]>();
    byRelease.set(release, [...(byRelease.get(release) ?? []), view.name]);
    found.set(family, byRelease);
  }
  return [...found]
    .map(([family, byRelease]) => {
      // Classes of one family pinned at different releases (an earlier run of the rollout moved some): the newest,
      // which the canary saw first; the others follow it.
      const [release, classes] = [...byRelease].sort(([a], [b]) => compareReleases(family, b, a))[0]!;
      return { family, release, nodeClasses: [...classes].sort() };
    })
    .sort((a, b) => inOrder(a.family, b.family));
}

// `since` is the client's clock and managedFields' `time` the API server's; the apply follows the first hold by
// seconds, while an earlier rollout's pin is at least that rollout's length older. Allow clocks this far apart.
const CLOCK_SKEW_MS = 5 * 60_000;

/** When the rollout to `to` began, in whole seconds (managedFields' precision): its first hold; undefined if none. */
function rolloutBegan(inventory: KarpenterObjects, nodeClasses: readonly NodeClassView[], to: string): number | undefined {
  const since = inventory.nodePools.flatMap((pool) => {
    if (!nodeClasses.some((c) => c.name === pool.nodeClass)) return [];
    const record = decodeHoldRecord(pool.annotations?.[HOLD_ANNOTATION]);
    if (record === undefined || 'error' in record || record.target !== to) return [];
    const t = Date.parse(record.since);
    return Number.isNaN(t) ? [] : [Math.floor(t / 1000) * 1000];
  });
  return since.length > 0 ? Math.min(...since) : undefined;
}

/** When karp-drift last changed the class by server-side apply; undefined if it never did (or the time is missing). */
function pinnedAt(view: NodeClassView, fieldManager: string): number | undefined {
  const entry = view.owners.find((o) => o.manager === fieldManager && o.operation === 'Apply' && o.ownsAmiSelectorTerms);
  const t = entry?.time === undefined ? NaN : Date.parse(entry.time);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * The one release every AMI in status.amis is, when all are EKS-optimized images of `to` and of one release; else
 * undefined (the class is not yet on `to`: the rollout's first run has not pinned it, or it was outside its window).
 */
function pinnedRelease(family: AmiFamily, amis: ReadonlyArray<{ name?: string }>, to: string): string | undefined {
  const fields = amis.map((a) => (a.name === undefined ? undefined : imageNameFields(family, a.name)));
  if (fields.length === 0 || fields.some((f) => f === undefined || f.kubernetesVersion !== to)) return undefined;
  const releases = new Set(fields.map((f) => f!.release));
  return releases.size === 1 ? [...releases][0] : undefined;
}

/** The kept families with what the AWS edge found they would be pinned at now. */
export function keptSources(
  kept: readonly KeptRelease[],
  against: ReadonlyArray<{ family: AmiFamily; newer: string | null }> = [],
): KeptSource[] {
  return kept.map((k) => ({ ...k, newer: against.find((a) => a.family === k.family)?.newer ?? null }));
}
