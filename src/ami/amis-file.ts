// Pure: the AMIs a pipeline promotes between environments, read from the document `amis -o json` or `plan -o json`
// wrote where they were tested (docs/promotion.md). Karpenter's guidance is to test an AMI in a lower
// environment and pin exactly that in production; this is the artifact that carries "exactly that".
import * as z from 'zod'; // a namespace import: a bundle keeps only the parts of zod that are used
import { AMI_FAMILIES, ARCHES, VARIANTS, type AmiFamily, type Arch, type Variant } from './families.js';
import { imageNameFields } from './verify.js';
import { UsageError } from '../errors.js';
import { issueWords } from '../text/issues.js';

/** One tested AMI: what it is for, and the image that was tested (its ID there, and its name, which names the release). */
export interface PromotedAmi {
  family: AmiFamily;
  arch: Arch;
  variant: Variant;
  release: string;
  id: string;
  name: string;
}

export interface AmisFile {
  kind: 'file';
  /** As given on the command line. */
  path: string;
  /** Which document it is. */
  shape: 'amis' | 'plan';
  kubernetesVersion: string;
  /** The region the IDs belong to; absent in a plan written before plans recorded it (the IDs are then looked up by name). */
  region?: string;
  /** One per image: two for one (family, arch, variant) are refused only where that AMI is needed (promotion.ts). */
  amis: PromotedAmi[];
  /** The release policy that chose these releases where they were tested (`latest~1 --min-age 7d`), when one did. */
  policy?: string;
}

/**
 * The same, read straight from the cluster where the AMIs were tested (`--from-context`, plan/source-cluster.ts): the
 * images its EC2NodeClasses pin and its nodes run, with no file in between.
 */
export interface ClusterAmis {
  kind: 'cluster';
  /** The source's kubeconfig context and its API server (never a credential). */
  context: string;
  server: string;
  kubernetesVersion: string;
  /** The source's region, when its kubeconfig tells (EKS endpoint, exec plugin's --region); else looked up by name. */
  region?: string;
  /** One per (family, arch, variant) this cluster needs. */
  amis: PromotedAmi[];
  /** The source's classes this promotion takes nothing from, or not all they run: reported, never blocking. */
  others?: OtherSourceClass[];
}

/**
 * A class of the source cluster that serves nothing the target pins (or also runs images it does not pin), e.g.
 * staging's Bottlerocket class still on 1.29 when the target needs AL2023 only.
 */
export interface OtherSourceClass {
  name: string;
  /** null: no EKS-optimized family (Custom, unknown). */
  family: AmiFamily | null;
  /** The images its nodes run that are not promoted, with the minor each is for. */
  amis: Array<PromotedAmi & { kubernetesVersion: string }>;
  /** False when it is mid-rollout (which does not matter here, since nothing is taken from it). */
  settled: boolean;
}

/** Where promoted AMIs were tested: a file a pipeline carried, or the cluster itself. */
export type TestedAmis = AmisFile | ClusterAmis;

/** How a message names where the AMIs were tested: the file's base name, or `context staging`. */
export function testedName(tested: TestedAmis): string {
  if (tested.kind === 'cluster') return `context ${tested.context}`;
  return tested.path.split(/[\\/]/).pop() || tested.path;
}

const ami = {
  arch: z.enum(ARCHES),
  variant: z.enum(VARIANTS),
  release: z.string().min(1),
  id: z.string().regex(/^ami-[0-9a-z]+$/, 'is not an AMI ID (ami-...)'),
  name: z.string().min(1),
};
const minor = z.string().regex(/^1\.\d+$/, 'is not a Kubernetes minor such as 1.31');
// What chose the releases, for the plan to say: `amis -o json` and an SSM plan record the policy, a plan that promoted
// such a file records its words. Only words, so a file that lost it or mangled it still promotes.
const recordedPolicy = z
  .union([
    z.object({ release: z.string(), minAge: z.string().nullable() }).transform((p) => (p.minAge == null ? p.release : `${p.release} --min-age ${p.minAge}`)),
    z.string().min(1),
  ])
  .optional()
  .catch(undefined);

// `amis -o json` (report/amis.ts amisJson); extra keys (parameter, state, problems, ...) are allowed and ignored.
const amisDocument = z.object({
  kubernetesVersion: minor,
  region: z.string().min(1),
  amis: z.array(z.object({ family: z.enum(AMI_FAMILIES), ...ami })).min(1, 'lists no AMIs'),
  releasePolicy: recordedPolicy,
});

// `plan -o json` (report/plan.ts planJson): each class's targets; `source.region` since plans record where they resolved.
const planDocument = z.object({
  kubernetesVersion: minor,
  nodeClasses: z.array(z.object({ name: z.string(), family: z.enum(AMI_FAMILIES), targets: z.array(z.object(ami)) })),
  source: z.object({ region: z.string().min(1).optional(), policy: recordedPolicy }).optional(),
});

const SHAPES = 'the document `karp-drift amis -o json` or `karp-drift plan -o json` writes';

function issueText(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where =
    issue.path.length > 0
      ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
      : 'the document';
  return `${where.replace(/^\./, '')} ${issue.message}`;
}

/** Parses the file's text; anything that is not one of the two documents is a usage error naming the file and the field. */
export function parseAmisFile(text: string, path: string): AmisFile {
  const next =
    'pass the file `karp-drift amis -o json` or `karp-drift plan -o json` wrote where the AMIs were tested (e.g. karp-drift amis --to 1.31 -o json > amis.json)';
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--amis-file ${path} is not JSON (${(err as Error).message})`, { hint: next });
  }
  doc = fromResult(doc, path, next);
  const keys = typeof doc === 'object' && doc != null && !Array.isArray(doc) ? Object.keys(doc) : [];
  const shape = keys.includes('amis') ? 'amis' : keys.includes('nodeClasses') ? 'plan' : undefined;
  if (shape === undefined) {
    throw new UsageError(`--amis-file ${path} is JSON but not ${SHAPES}: it has neither "amis" nor "nodeClasses"`, {
      hint: next,
    });
  }
  const words = { error: issueWords };
  const parsed = shape === 'amis' ? amisDocument.safeParse(doc, words) : planDocument.safeParse(doc, words);
  if (!parsed.success) {
    throw new UsageError(
      `--amis-file ${path} is not a valid \`${shape} -o json\` document: ${issueText(parsed.error)}`,
      { hint: next },
    );
  }
  const amis: PromotedAmi[] =
    shape === 'amis'
      ? (parsed.data as z.infer<typeof amisDocument>).amis.map(({ family, arch, variant, release, id, name }) => ({
          family,
          arch,
          variant,
          release,
          id,
          name,
        }))
      : (parsed.data as z.infer<typeof planDocument>).nodeClasses.flatMap((c) =>
          c.targets.map(({ arch, variant, release, id, name }) => ({
            family: c.family,
            arch,
            variant,
            release,
            id,
            name,
          })),
        );
  const region =
    shape === 'amis'
      ? (parsed.data as z.infer<typeof amisDocument>).region
      : (parsed.data as z.infer<typeof planDocument>).source?.region;
  const policy =
    shape === 'amis'
      ? (parsed.data as z.infer<typeof amisDocument>).releasePolicy
      : (parsed.data as z.infer<typeof planDocument>).source?.policy;
  const kubernetesVersion = parsed.data.kubernetesVersion;
  if (amis.length === 0)
    throw new UsageError(`--amis-file ${path} is a plan with no target AMIs: it pins nothing to promote`, {
      hint: next,
    });
  return {
    kind: 'file',
    path,
    shape,
    kubernetesVersion,
    ...(region !== undefined ? { region } : {}),
    amis: distinctAmis(amis, path, kubernetesVersion),
    ...(policy !== undefined ? { policy } : {}),
  };
}

/**
 * A `--result-file` document (the GitHub Action's `json` output) carries the plan the run applied: promotable when the
 * run succeeded, i.e. the AMIs were rolled out to the end there. Anything else is returned as it is.
 */
function fromResult(doc: unknown, path: string, next: string): unknown {
  const d = doc as { kind?: unknown; result?: unknown; command?: unknown; plan?: unknown } | null;
  if (typeof d !== 'object' || d == null || d.kind !== 'Result') return doc;
  if (d.result !== 'succeeded' || typeof d.plan !== 'object' || d.plan == null) {
    throw new UsageError(
      `--amis-file ${path} is the result of a karp-drift ${String(d.command)} that ended ${String(d.result)}${d.plan == null ? ' with no plan' : ''}: its AMIs were not rolled out to the end there`,
      { hint: `promote the result of a run that succeeded, or ${next}` },
    );
  }
  return d.plan;
}

// A plan lists the same target under every class that needs it: kept once. Two different images for one (family,
// arch, variant) are both kept: they leave "exactly what was tested" undefined only for a cluster that needs that
// AMI, which plan/promotion.ts refuses. A name must be the EKS-optimized image it claims to be: it is what another
// region looks the release up by, and it must carry no wildcard.
function distinctAmis(amis: readonly PromotedAmi[], path: string, kubernetesVersion: string): PromotedAmi[] {
  const byImage = new Map<string, PromotedAmi>();
  for (const a of amis) {
    const key = `${a.family} ${a.arch} ${a.variant}`;
    const fields = imageNameFields(a.family, a.name);
    if (fields === undefined || fields.kubernetesVersion !== kubernetesVersion) {
      throw new UsageError(
        `--amis-file ${path}: ${key} names ${JSON.stringify(a.name)}, which is not an EKS-optimized ${a.family} AMI for Kubernetes ${kubernetesVersion}`,
        {
          hint: 'promote the file karp-drift wrote unchanged',
        },
      );
    }
    byImage.set(`${key} ${a.id} ${a.name}`, a);
  }
  return [...byImage.values()];
}
