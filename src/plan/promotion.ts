// Pure: where a plan's AMIs come from. By default SSM resolves them; with `--amis-file` or `--from-context` they are
// exactly the AMIs a lower environment tested, matched here to the (family, arch, variant) each EC2NodeClass in scope
// needs.
import { familyVersionProblem, variantExists, type AmiFamily, type Arch, type Variant } from '../ami/families.js';
import type { AmisFile, OtherSourceClass, PromotedAmi, TestedAmis } from '../ami/amis-file.js';
import type { RecordedPolicy } from '../ami/release-policy.js';
import type { KeptSource } from './kept-releases.js';
import type { KarpenterObjects } from '../karpenter/views.js';
import { UsageError } from '../errors.js';
import { amiNeeds, nodeClassesInScope } from './targets.js';

export type PlanSource =
  | {
      kind: 'ssm';
      region: string;
      /** --release latest~N / --min-age: the release chosen per family, and against what. */
      policy?: RecordedPolicy;
      /** The families a staged rollout under way keeps at the release it started with (kept-releases.ts). */
      kept?: KeptSource[];
    }
  | {
      kind: 'file';
      path: string;
      shape: 'amis' | 'plan';
      /** This region: where the target IDs belong (so this plan can itself be promoted). */
      region: string;
      /** The region the file's IDs belong to; null when the file does not say (a plan from before plans recorded it). */
      fileRegion: string | null;
      kubernetesVersion: string;
      /** id: the file's IDs verified as they are (same region); name: the same releases found here by exact image name. */
      lookup: 'id' | 'name';
      /** The release policy that chose the file's releases where they were tested (`latest~1`), when one did. */
      policy?: string;
    }
  | {
      kind: 'cluster';
      /** The source cluster's kubeconfig context and API server (never a credential). */
      context: string;
      server: string;
      /** This region: where the target IDs belong. */
      region: string;
      /** The source's region as its kubeconfig tells it; null when it does not (the AMIs are then found by name). */
      sourceRegion: string | null;
      kubernetesVersion: string;
      /** id: the source's IDs verified as they are (same region); name: the same releases found here by image name. */
      lookup: 'id' | 'name';
      /** The source's classes nothing was taken from (or not all they run): reported, not blocking. */
      otherClasses: OtherSourceClass[];
    };

/** One (family, arch, variant) a class in scope needs, and the NodePools or nodes that need it. */
export interface PromotionNeed {
  nodeClass: string;
  family: AmiFamily;
  arch: Arch;
  variant: Variant;
  from: string[];
}

/**
 * What the classes in scope will pin: the keys a promotion must supply, and all a source must be settled on. Classes
 * the plan refuses anyway (unknown family, none published for `--to`) are left to their checks.
 */
export function promotionNeeds(
  inventory: KarpenterObjects,
  options: { to: string; nodeClasses?: readonly string[] },
): PromotionNeed[] {
  const needs: PromotionNeed[] = [];
  for (const view of nodeClassesInScope(inventory, options.nodeClasses).nodeClasses) {
    const { family, pairs } = amiNeeds(inventory, view.name);
    if (family === undefined || familyVersionProblem(family, options.to) !== undefined) continue;
    for (const need of pairs) {
      if (variantExists(family, need.arch, need.variant))
        needs.push({ nodeClass: view.name, family, arch: need.arch, variant: need.variant, from: need.from });
    }
  }
  return needs;
}

/**
 * The tested AMIs the classes in scope need, one per (family, arch, variant). The file's minor must be `--to` (the
 * source cluster's was checked as it was read), and it must hold every AMI a class needs: a partial promotion would
 * leave that class on SSM's choice, which was never tested. What else it holds is not looked at: a file that also
 * records images this cluster does not use (another family, two releases of one) pins what it is asked for.
 */
export function promotedAmis(
  inventory: KarpenterObjects,
  file: TestedAmis,
  options: { to: string; nodeClasses?: readonly string[] },
): PromotedAmi[] {
  if (file.kind === 'file') requireFileMinor(file, options.to);
  const wanted = new Map<string, PromotedAmi>();
  const lacking = new Map<string, string[]>();
  const needs = promotionNeeds(inventory, options);
  for (const need of needs) {
    const { family, arch, variant } = need;
    const found = file.amis.filter((a) => a.family === family && a.arch === arch && a.variant === variant);
    if (found.length > 1 && file.kind === 'file') {
      throw new UsageError(
        `--amis-file ${file.path} records two different ${family} ${arch} ${variant} AMIs: ${found[0]!.id} (${found[0]!.name}) and ${found[1]!.id} (${found[1]!.name}); nothing was changed`,
        { hint: 'promote a file with one tested AMI per family, architecture and variant' },
      );
    }
    const lack = `${arch} ${variant} (needed by ${need.from.join(', ')})`;
    if (found[0] === undefined) lacking.set(need.nodeClass, [...(lacking.get(need.nodeClass) ?? []), lack]);
    else wanted.set(`${family}/${arch}/${variant}`, found[0]);
  }
  const familyOf = new Map(needs.map((n) => [n.nodeClass, n.family]));
  const missing = [...lacking].map(([name, l]) => `ec2nodeclass/${name} needs ${familyOf.get(name)} ${l.join(', ')}`);
  if (missing.length > 0) {
    const key = (a: PromotedAmi) => `${a.family} ${a.arch} ${a.variant}`;
    // A source cluster's own list holds only what this cluster needs; what else its nodes run is in `others`.
    const elsewhere =
      file.kind === 'cluster'
        ? (file.others ?? []).flatMap((o) =>
            o.amis.map((a) => `${key(a)}${a.kubernetesVersion !== options.to ? ` (${a.kubernetesVersion})` : ''}`),
          )
        : [];
    const has = [...new Set([...file.amis.map(key), ...elsewhere])].join(', ');
    if (file.kind === 'cluster') {
      // Pinned there but run by no node is not tested, so it is not on offer (plan/source-cluster.ts).
      throw new UsageError(
        `source context ${file.context} (${file.server}) runs no node on AMIs the classes in scope need; nothing was changed:\n  ${missing.join('\n  ')}\n  its nodes run: ${has || '(none)'}`,
        {
          hint: `test them in ${file.context} first (a NodePool there that launches such nodes on the pinned AMIs), or plan only the classes ${file.context} covers with --nodeclass`,
        },
      );
    }
    throw new UsageError(
      `--amis-file ${file.path} lacks AMIs the classes in scope need; nothing was changed:\n  ${missing.join('\n  ')}\n  the file has: ${has}`,
      {
        hint: `record them where the AMIs were tested (e.g. karp-drift amis --to ${options.to} --family <family> --arch all --variant <variants> -o json), or plan only the classes the file covers with --nodeclass`,
      },
    );
  }
  return [...wanted.values()];
}

/** The file's AMIs are for one Kubernetes minor, and `--to` must name it: the same release for another minor is another image. */
export function requireFileMinor(file: AmisFile, to: string): void {
  if (file.kubernetesVersion === to) return;
  throw new UsageError(
    `--amis-file ${file.path} records AMIs for Kubernetes ${file.kubernetesVersion}, but --to is ${to}; nothing was changed`,
    {
      hint: `pass --to ${file.kubernetesVersion} to promote them, or promote a file written for ${to} (karp-drift amis --to ${to} -o json where it was tested)`,
    },
  );
}

/**
 * The `karp-drift.io/promoted-from` annotation of a promoted class: the file's name (not its path, which means
 * nothing on another machine) or the source's context, and the releases pinned, e.g.
 * `file:amis.json; release v20261023; from us-east-1` or `context:staging; release v20261023`.
 */
export function promotedFrom(source: PlanSource, releases: readonly string[]): string | undefined {
  if (source.kind === 'ssm') return undefined;
  const origin =
    source.kind === 'file' ? `file:${source.path.split(/[\\/]/).pop() || source.path}` : `context:${source.context}`;
  const from = source.kind === 'file' ? source.fileRegion : source.sourceRegion;
  const parts = [origin, `release ${[...new Set(releases)].join(', ')}`];
  if (from != null && from !== source.region) parts.push(`from ${from}`);
  return parts.join('; ');
}
