// Pure: what a source cluster (`--from-context`, typically staging) has tested, as the same AMIs an `--amis-file`
// records, so promotion.ts and ami/resolve.ts treat both alike. "Tested" means pinned and run: an image counts when an
// EC2NodeClass's status.amis lists it and a NodeClaim of that class runs it (status.imageID). A source mid-rollout,
// running mixed releases, or on another minor for what this cluster will pin has no one tested state to promote, so
// it is refused (exit 3) before anything is written anywhere; its other classes are only reported. DOMAIN.md §1.2 (status.amis), §1.4 (status.imageID, Drifted), §2.3 (AMIDrift).
import type { ClusterAmis, OtherSourceClass, PromotedAmi } from '../ami/amis-file.js';
import type { AmiFamily, Arch, Variant } from '../ami/families.js';
import { imageNameFields } from '../ami/verify.js';
import type { Inventory, NodeClaimView, NodeClassView } from '../karpenter/views.js';
import { RefusedError } from '../errors.js';
import { ARCH_LABEL } from './requirements.js';
import { nodeClassFamily } from './targets.js';
import { inOrder } from '../text/order.js';

export interface SourceClusterRead {
  context: string;
  server: string;
  /** sourceRegion() of its kubeconfig entry. */
  region?: string;
  inventory: Pick<Inventory, 'nodeClasses' | 'nodeClaims' | 'controlPlane'>;
}

/** Evidence lines shown before "… and N more". */
const EVIDENCE = 10;

interface Run {
  ami: PromotedAmi;
  minor: string;
  nodeClass: string;
  nodeClaim: string;
}

/** A (family, arch, variant) this cluster's classes in scope need: what the source must be settled on. */
export interface NeededKey {
  family: AmiFamily;
  arch: Arch;
  variant: Variant;
}

const keyOf = (k: NeededKey) => `${k.family} ${k.arch} ${k.variant}`;

/**
 * The source's tested AMIs for `--to`, one per (family, arch, variant) in `needed` (all it runs when not given); a
 * source with no one tested state for them is refused. Only what this cluster will pin must be settled on `--to`
 * there: a class of the source that serves none of it (staging's Bottlerocket class still on 1.29, when this plan
 * pins only AL2023) blocks nothing and is returned in `others`, to be reported.
 */
export function sourceClusterAmis(source: SourceClusterRead, to: string, needed?: readonly NeededKey[]): ClusterAmis {
  const where = `source context ${source.context} (${source.server})`;
  const classes = [...source.inventory.nodeClasses].sort((a, b) => inOrder(a.name, b.name));
  const claimsOf = (view: NodeClassView) =>
    source.inventory.nodeClaims
      .filter((c) => c.nodeClass === view.name && c.imageId !== undefined)
      .sort((a, b) => inOrder(a.name, b.name));
  const wanted = needed === undefined ? undefined : new Set(needed.map(keyOf));
  const families = new Set(needed?.map((k) => k.family));
  const isNeeded = (r: Run) => wanted === undefined || wanted.has(keyOf(r.ami));
  // A class counts when it serves a needed key, or might (its family is needed and nothing tells which keys it serves).
  const relevant = (view: NodeClassView, runs: readonly Run[]) => {
    if (wanted === undefined) return true;
    const keys = classKeys(view, runs);
    const { family } = nodeClassFamily(view);
    return keys.some((k) => wanted.has(k)) || (keys.length === 0 && family !== undefined && families.has(family));
  };
  const read = classes.map((view) => {
    const claims = claimsOf(view);
    const runs = runsOf(view, claims);
    return { view, runs, unsettled: unsettledEvidence(view, claims), relevant: relevant(view, runs) };
  });

  const unsettled = read.filter((c) => c.relevant).flatMap((c) => c.unsettled);
  if (unsettled.length > 0) {
    throw new RefusedError(
      `${where} is mid-rollout: its nodes do not all run what its EC2NodeClasses pin, so it has no one tested state to promote; nothing was changed\n${evidence(unsettled)}`,
      {
        hint: `let the rollout there finish (karp-drift wait --context ${source.context}), then promote`,
      },
    );
  }

  const allRuns = read.flatMap((c) => c.runs);
  const runs = allRuns.filter(isNeeded);
  const otherMinor = runs.filter((r) => r.minor !== to);
  if (otherMinor.length > 0) {
    const minors = [...new Set(otherMinor.map((r) => r.minor))].sort();
    const onTo = runs.length > otherMinor.length;
    throw new RefusedError(
      `${where} runs Kubernetes ${minors.join(' and ')} AMIs${onTo ? ` on some nodes` : ''}, not ${to} (--to)${wanted !== undefined ? `, for what this plan pins (${[...new Set(otherMinor.map((r) => keyOf(r.ami)))].join(', ')})` : ''}; nothing was changed\n${evidence(perImage(otherMinor))}`,
      {
        hint:
          minors.length === 1 && !onTo && allRuns.every((r) => r.minor === minors[0])
            ? `pass --to ${minors[0]} to promote what ${source.context} runs, or upgrade ${source.context} to ${to} first (karp-drift upgrade --to ${to} --context ${source.context})`
            : `upgrade ${upgradeWhat(otherMinor)} of ${source.context} to ${to} first (karp-drift upgrade --to ${to} --context ${source.context}${nodeClassFlags(otherMinor)}), then promote${wanted !== undefined ? '; or promote only the classes here that need none of it (--nodeclass)' : ''}`,
      },
    );
  }

  const byKey = new Map<string, Run[]>();
  for (const r of runs) byKey.set(keyOf(r.ami), [...(byKey.get(keyOf(r.ami)) ?? []), r]);
  const mixed = [...byKey].filter(([, rs]) => new Set(rs.map((r) => r.ami.id)).size > 1);
  if (mixed.length > 0) {
    const lines = mixed.map(([key, rs]) => `${key}: ${perImage(rs).join('; ')}`);
    throw new RefusedError(
      `${where} runs more than one release of ${mixed.map(([key]) => key).join(', ')}: which one was tested is ambiguous; nothing was changed\n${evidence(lines)}`,
      {
        hint: `pin one release for each in ${source.context} and let its nodes run it (karp-drift upgrade --to ${to} --context ${source.context}), then promote`,
      },
    );
  }
  if (allRuns.length === 0) {
    throw new RefusedError(
      `${where} has no node that runs an EKS-optimized AMI its EC2NodeClass pins: nothing was tested there to promote; nothing was changed`,
      { hint: `check --from-context, or run nodes on the AMIs in ${source.context} first` },
    );
  }
  const others = read
    .filter((c) => !c.relevant || c.runs.some((r) => !isNeeded(r)))
    .map((c) => otherClass(c, isNeeded));
  return {
    kind: 'cluster',
    context: source.context,
    server: source.server,
    kubernetesVersion: to,
    ...(source.region !== undefined ? { region: source.region } : {}),
    amis: [...byKey.values()].map((rs) => rs[0]!.ami),
    ...(others.length > 0 ? { others } : {}),
  };
}

/** "every EC2NodeClass" when they all lag, else the ones that do. */
function upgradeWhat(runs: readonly Run[]): string {
  const names = [...new Set(runs.map((r) => r.nodeClass))];
  return names.length === 1 ? `ec2nodeclass/${names[0]}` : `ec2nodeclasses ${names.join(', ')}`;
}
const nodeClassFlags = (runs: readonly Run[]) =>
  [...new Set(runs.map((r) => r.nodeClass))].map((n) => ` --nodeclass ${n}`).join('');

// The keys a class serves: what its nodes run, and what its status.amis offers (both variants where one image serves
// two, DOMAIN.md §3.4). Empty when it tells nothing (no status.amis names an EKS-optimized image).
function classKeys(view: NodeClassView, runs: readonly Run[]): string[] {
  const { family } = nodeClassFamily(view);
  if (family === undefined) return [];
  const keys = new Set(runs.map((r) => keyOf(r.ami)));
  for (const ami of view.statusAmis) {
    const fields = ami.name !== undefined ? imageNameFields(family, ami.name) : undefined;
    if (fields === undefined) continue;
    const arch = archOf(fields.architecture, ami.requirements.find((r) => r.key === ARCH_LABEL)?.values);
    for (const variant of imageVariants(family, arch, fields.flavor)) keys.add(keyOf({ family, arch, variant }));
  }
  return [...keys];
}

/** A class of the source this promotion does not take from, as the plan reports it. */
function otherClass(
  c: { view: NodeClassView; runs: readonly Run[]; unsettled: readonly string[] },
  isNeeded: (r: Run) => boolean,
): OtherSourceClass {
  const byImage = new Map<string, Run>();
  for (const r of c.runs) if (!isNeeded(r)) byImage.set(r.ami.id, r);
  return {
    name: c.view.name,
    family: nodeClassFamily(c.view).family ?? null,
    amis: [...byImage.values()].map((r) => ({ ...r.ami, kubernetesVersion: r.minor })),
    settled: c.unsettled.length === 0,
  };
}

// Karpenter writes status.amis only once AMIsReady has observed the spec it resolved (kubectl wait's
// observedGeneration rule); a NodeClaim whose image status.amis no longer lists, or that is Drifted for any reason,
// is about to be replaced.
function unsettledEvidence(view: NodeClassView, claims: readonly NodeClaimView[]): string[] {
  const lines: string[] = [];
  const ready = view.conditions.AMIsReady;
  const cls = `ec2nodeclass/${view.name}`;
  if (ready === undefined) lines.push(`${cls} has no AMIsReady condition: Karpenter has not resolved its AMIs`);
  else if (ready.status !== 'True')
    lines.push(`${cls} is AMIsReady=${ready.status} (${ready.reason}${ready.message ? `: ${ready.message}` : ''})`);
  else if (ready.observedGeneration !== undefined && ready.observedGeneration < view.generation)
    lines.push(
      `${cls}: AMIsReady has observed generation ${ready.observedGeneration}, not ${view.generation}: Karpenter has not resolved its new amiSelectorTerms yet`,
    );
  else if (view.statusAmis.length === 0) lines.push(`${cls} has no status.amis`);
  const pinned = new Set(view.statusAmis.map((a) => a.id));
  for (const c of claims) {
    const drifted = c.conditions.Drifted;
    if (drifted?.status === 'True')
      lines.push(`nodeclaim/${c.name} (${cls}, ${c.imageId}) is Drifted (${drifted.reason || 'no reason'})`);
    else if (pinned.size > 0 && !pinned.has(c.imageId!))
      lines.push(`nodeclaim/${c.name} runs ${c.imageId}, which status.amis of ${cls} does not list (AMIDrift)`);
  }
  return lines;
}

// What each running NodeClaim of the class tested. A class of no EKS-optimized family (Custom), or an image whose name
// is not an EKS-optimized one, is nothing karp-drift could pin elsewhere: left out, so a class that needs it is
// reported as lacking it (promotion.ts).
function runsOf(view: NodeClassView, claims: readonly NodeClaimView[]): Run[] {
  const { family } = nodeClassFamily(view);
  if (family === undefined) return [];
  const runs: Run[] = [];
  for (const c of claims) {
    if (c.deleting) continue;
    const pinned = view.statusAmis.find((a) => a.id === c.imageId);
    const fields = pinned?.name !== undefined ? imageNameFields(family, pinned.name) : undefined;
    if (pinned?.name === undefined || fields === undefined) continue;
    const arch = archOf(fields.architecture, pinned.requirements.find((r) => r.key === ARCH_LABEL)?.values);
    runs.push({
      ami: {
        family,
        arch,
        variant: imageVariant(family, arch, fields.flavor, c),
        release: fields.release,
        id: pinned.id,
        name: pinned.name,
      },
      minor: fields.kubernetesVersion,
      nodeClass: view.name,
      nodeClaim: c.name,
    });
  }
  return runs;
}

function archOf(named: string | undefined, required: readonly string[] | undefined): Arch {
  if (named !== undefined) return named === 'x86_64' ? 'amd64' : 'arm64';
  return required?.length === 1 && required[0] === 'arm64' ? 'arm64' : 'amd64';
}

/** The variants one image serves, when no instance tells which (imageVariant's two shared images serve both). */
function imageVariants(family: AmiFamily, arch: Arch, flavor: string): Variant[] {
  if (family === 'al2' && flavor === 'gpu') return ['nvidia', 'neuron'];
  if (family === 'bottlerocket' && flavor === 'standard' && arch === 'amd64') return ['standard', 'neuron'];
  return [flavor === 'nvidia' || flavor === 'gpu' ? 'nvidia' : flavor === 'neuron' ? 'neuron' : 'standard'];
}

// The variant an image name says (DOMAIN.md §3.4). Two images serve two variants: AL2's one GPU image (nvidia and
// neuron) and Bottlerocket's standard x86_64 image (standard and neuron); the instance it runs on tells which.
function imageVariant(family: AmiFamily, arch: Arch, flavor: string, claim: NodeClaimView): Variant {
  if (family === 'al2' && flavor === 'gpu') return claim.accelerator ? 'neuron' : 'nvidia';
  if (family === 'bottlerocket' && flavor === 'standard' && arch === 'amd64' && claim.accelerator) return 'neuron';
  return flavor === 'nvidia' || flavor === 'gpu' ? 'nvidia' : flavor === 'neuron' ? 'neuron' : 'standard';
}

/** One line per image: `ami-… (name) on nodeclaim/a, nodeclaim/b (ec2nodeclass/default)`. */
function perImage(runs: readonly Run[]): string[] {
  const byImage = new Map<string, Run[]>();
  for (const r of runs)
    byImage.set(`${r.ami.id} ${r.nodeClass}`, [...(byImage.get(`${r.ami.id} ${r.nodeClass}`) ?? []), r]);
  return [...byImage.values()].map((rs) => {
    const claims = rs.map((r) => `nodeclaim/${r.nodeClaim}`);
    const shown = claims.length > 3 ? [...claims.slice(0, 3), `${claims.length - 3} more`] : claims;
    return `${rs[0]!.ami.id} (${rs[0]!.ami.name}) on ${shown.join(', ')} (ec2nodeclass/${rs[0]!.nodeClass})`;
  });
}

function evidence(lines: readonly string[]): string {
  const shown = lines.slice(0, EVIDENCE).map((l) => `  ${l}`);
  if (lines.length > EVIDENCE) shown.push(`  … and ${lines.length - EVIDENCE} more`);
  return shown.join('\n');
}

/**
 * The region a kubeconfig entry's cluster is in, when it tells: the EKS endpoint's host
 * (`<id>.<gr7>.<region>.eks.amazonaws.com`), the cluster entry's ARN (`aws eks update-kubeconfig` names it so), or the
 * exec plugin's `--region` or AWS_REGION/AWS_DEFAULT_REGION (`aws eks get-token`). Undefined otherwise: the promoted
 * AMIs are then found here by exact image name, which is right in any region.
 */
export function sourceRegion(entry: {
  server: string;
  kubeconfigCluster: string;
  exec?: { args: readonly string[]; env: ReadonlyArray<{ name: string; value: string }> };
}): string | undefined {
  const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;
  let host = '';
  try {
    host = new URL(entry.server).hostname.toLowerCase();
  } catch {
    // Not a URL: nothing to read from it.
  }
  const fromHost = /\.([a-z0-9-]+)\.eks\.amazonaws\.com(?:\.cn)?$/.exec(host)?.[1];
  if (fromHost !== undefined && REGION.test(fromHost)) return fromHost;
  const fromArn = /^arn:aws[\w-]*:eks:([a-z0-9-]+):\d{12}:cluster\//.exec(entry.kubeconfigCluster)?.[1];
  if (fromArn !== undefined && REGION.test(fromArn)) return fromArn;
  const args = entry.exec?.args ?? [];
  for (const [i, arg] of args.entries()) {
    const value =
      arg === '--region' ? args[i + 1] : arg.startsWith('--region=') ? arg.slice('--region='.length) : undefined;
    if (value !== undefined && REGION.test(value)) return value;
  }
  const env = entry.exec?.env ?? [];
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION']) {
    const value = env.find((e) => e.name === name)?.value;
    if (value !== undefined && REGION.test(value)) return value;
  }
  return undefined;
}
