// The AWS edge: SSM GetParameters for the image_id (and metadata) parameters, then one EC2 DescribeImages for every
// ID, then the pure checks of verify.ts. The only file that imports @aws-sdk/* (STYLE.md "Pure core, thin edges").
import { DescribeImagesCommand, EC2Client, type DescribeImagesCommandOutput, type Image } from '@aws-sdk/client-ec2';
import { GetParametersByPathCommand, GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { amiQueries } from './select.js';
import { ssmMetadataPaths, ssmParameterPath, type AmiQuery } from './parameters.js';
import { concreteRelease, resolvedAmi, verifyImage, type ImageView, type ReleaseMetadata, type ResolvedAmi } from './verify.js';
import type { AmiFamily } from './families.js';
import { RuntimeFailure } from '../errors.js';
import { ec2Failure, missingParametersError, ssmFailure } from './aws-failures.js';
import { requireProfile } from './profiles.js';
import { awsClientConfig, clientRegion, type AwsOptions } from './aws-config.js';
import type { Logger } from '../logger.js';
import { testedName, type PromotedAmi, type TestedAmis } from './amis-file.js';
import { verifyPromoted } from './verify-promoted.js';
import type { AmiSelection } from './select.js';
import {
  chooseRelease,
  listedReleases,
  publishedAt,
  releaseChoiceText,
  releaseFolder,
  releasePolicy,
  releasePolicyText,
  type ListedRelease,
  type RecordedPolicy,
  type ReleaseChoice,
  type ReleasePolicy,
} from './release-policy.js';
import { UsageError } from '../errors.js';

export type { ImageView, ResolvedAmi } from './verify.js';
export type { AwsOptions } from './aws-config.js';

export interface ResolvedAmis {
  region: string;
  amis: ResolvedAmi[];
  /** --release latest~N / --min-age: the release chosen per family, and against what. */
  policy?: RecordedPolicy;
  /** The families asked at a kept release, and what the policy (or `latest`) chooses for them now. */
  kept?: KeptAgainst[];
}

/** A family a staged rollout under way keeps at `release`; `newer`: what would be pinned now (null: not told). */
export interface KeptAgainst {
  family: AmiFamily;
  release: string;
  newer: string | null;
}

/** GetParameters accepts at most 10 names a call (SSM API reference, GetParameters `Names`). */
export const SSM_BATCH_SIZE = 10;

export async function resolveAmis(selection: AmiSelection, aws: AwsOptions, log: Logger): Promise<ResolvedAmis> {
  const policy = releasePolicy(selection.release, selection.minAge);
  return resolveAmiQueries(amiQueries(selection), aws, log, policy !== undefined ? { policy } : {});
}

/**
 * Resolves and verifies explicit queries (render, plan, upgrade). Throws unless every AMI exists and passed
 * verification. With `keepUnusable` (plan, upgrade) it throws only when nothing at all is published (the version or
 * release is wrong: exit 2); otherwise it leaves out what SSM lacks and marks what EC2 refuses `usable: false`, for the
 * plan to refuse per class (AMI-MISSING, exit 3, naming the classes and NodePools that need them).
 */
export async function resolveAmiQueries(
  asked: readonly AmiQuery[],
  aws: AwsOptions,
  log: Logger,
  options: { keepUnusable?: boolean; policy?: ReleasePolicy; kept?: ReadonlyArray<{ family: AmiFamily; release: string }> } = {},
): Promise<ResolvedAmis> {
  const { ssm, ec2 } = awsClients(aws, log);
  try {
    const region = await clientRegion(ssm);
    if (asked.length === 0) return { region, amis: [] };
    let queries = asked;
    let policy: RecordedPolicy | undefined;
    const kept = (options.kept ?? []).filter((k) => asked.some((q) => q.family === k.family));
    let newer = new Map<AmiFamily, string | null>();
    if (options.policy !== undefined) {
      const chosen = await chooseReleases(ssm, ec2, queries, options.policy, region, log, new Set(kept.map((k) => k.family)));
      policy = chosen.recorded;
      queries = chosen.queries;
      newer = chosen.newer;
    }
    // Without a policy, what `latest` names now: the recommended parameter's release metadata, read alongside.
    const latest = options.policy === undefined ? latestProbes(queries, kept) : [];
    log.info(
      `Resolving ${queries.length} EKS-optimized AMI(s) for Kubernetes ${[...new Set(queries.map((q) => q.kubernetesVersion))].join(', ')} in ${region}`,
    );
    const probeNames = latest.flatMap((q) => [ssmParameterPath(q), ...Object.values(ssmMetadataPaths(q))]);
    const parameters = await readParameters(ssm, [...new Set([...parameterNames(queries), ...probeNames])], region, log);
    for (const q of latest) {
      const release = parameters.has(ssmParameterPath(q)) ? concreteRelease(q, metadataOf(q, parameters), undefined) : 'latest';
      newer.set(q.family, release === 'latest' ? null : release);
    }
    const keptAgainst = kept.map((k) => ({ ...k, newer: newer.get(k.family) ?? null }));
    const missing = queries.filter((q) => !parameters.has(ssmParameterPath(q)));
    if (missing.length > 0 && (options.keepUnusable !== true || missing.length === queries.length))
      throw missingParametersError(missing, region);
    const published = queries.filter((q) => parameters.has(ssmParameterPath(q)));

    const ids = [...new Set(published.map((q) => parameters.get(ssmParameterPath(q))!))];
    const images = new Map(
      (await describeImages(ec2, { Filters: [{ Name: 'image-id', Values: ids }] }, region, log)).map((i) => [i.id, i]),
    );
    const now = new Date();
    const checked = published.map((q) => {
      const id = parameters.get(ssmParameterPath(q))!;
      const image = images.get(id);
      const verdict = verifyImage(q, image, now);
      return { ami: resolvedAmi(q, id, metadataOf(q, parameters), image, verdict), failures: verdict.failures };
    });
    const failing = checked.filter((c) => c.failures.length > 0);
    if (failing.length > 0 && options.keepUnusable !== true) {
      const lines = failing.map(
        ({ ami, failures }) =>
          `  ${ami.id} (${ami.family} ${ami.arch} ${ami.variant}, ${ami.parameter}): ${failures.join('; ')}`,
      );
      throw new RuntimeFailure(
        `EC2 verification failed for ${failing.length} AMI(s) in ${region}:\n${lines.join('\n')}`,
        {
          hint: 'do not pin these images; if a release is still being published, retry later, otherwise pin an earlier release with --release',
        },
      );
    }
    return {
      region,
      amis: checked.map((c) => c.ami),
      ...(policy !== undefined ? { policy } : {}),
      ...(keptAgainst.length > 0 ? { kept: keptAgainst } : {}),
    };
  } finally {
    // Keep-alive sockets would otherwise hold the process open after the command is done.
    ssm.destroy();
    ec2.destroy();
  }
}

function awsClients(aws: AwsOptions, log: Logger): { ssm: SSMClient; ec2: EC2Client } {
  requireProfile(aws.profile, process.env);
  const config = awsClientConfig(aws, process.env, log);
  return { ssm: abortable(new SSMClient(config), aws.signal), ec2: abortable(new EC2Client(config), aws.signal) };
}

/**
 * The SDK takes an abort signal per call (`send(command, { abortSignal })`), not per client: every call of this client
 * gets `signal`, wherever in this module it is made. An aborted call rejects with an AbortError, which the SDK's
 * retry strategy does not retry.
 */
function abortable<C extends SSMClient | EC2Client>(client: C, signal: AbortSignal | undefined): C {
  if (signal === undefined) return client;
  const send = client.send.bind(client) as (command: unknown, options?: object) => Promise<unknown>;
  (client as { send: unknown }).send = (command: unknown, options?: object) => {
    signal.throwIfAborted();
    return send(command, { abortSignal: signal, ...options });
  };
  return client;
}

/**
 * `--amis-file`, `--from-context`: the tested AMIs verified again here, with no SSM read. In the region they were
 * tested in the IDs are checked as they are; in another region an AMI has another ID, so the same release is found by its exact image name among
 * Amazon's images (the alias `amazon` covers the EKS, Bottlerocket and Windows accounts of every region, and Karpenter's
 * default owners include it). Whatever fails is kept `usable: false` for the plan to refuse (AMI-MISSING, exit 3).
 */
export async function resolvePromotedAmis(
  amis: readonly PromotedAmi[],
  file: TestedAmis,
  to: string,
  aws: AwsOptions,
  log: Logger,
): Promise<ResolvedAmis & { lookup: 'id' | 'name' }> {
  const { ssm, ec2 } = awsClients(aws, log);
  try {
    const region = await clientRegion(ssm);
    const lookup = file.region === region ? 'id' : 'name';
    if (amis.length === 0) return { region, amis: [], lookup };
    const base = testedName(file);
    const unknown = file.kind === 'file' ? 'a plan that does not record its region' : 'a kubeconfig that does not tell its region';
    const from = file.region === undefined ? unknown : file.region;
    log.info(
      `Verifying ${amis.length} promoted AMI(s) from ${file.kind === 'file' ? file.path : base} (Kubernetes ${file.kubernetesVersion}, ${from}) in ${region}${lookup === 'name' ? ', by image name' : ''}`,
    );
    const images =
      lookup === 'id'
        ? await describeImages(ec2, { Filters: [{ Name: 'image-id', Values: [...new Set(amis.map((a) => a.id))] }] }, region, log)
        : await describeImages(ec2, { Owners: ['amazon'], Filters: [{ Name: 'name', Values: [...new Set(amis.map((a) => a.name))] }] }, region, log);
    const now = new Date();
    const where = { file: base, region, lookup } as const;
    const resolved = amis.map((a) =>
      verifyPromoted(a, to, images.filter((i) => (lookup === 'id' ? i.id === a.id : i.name === a.name)), where, now),
    );
    return { region, amis: resolved, lookup };
  } finally {
    ssm.destroy();
    ec2.destroy();
  }
}

/**
 * `--pin name`: how many images each AMI's exact name selects under its owner, as Karpenter will look them up for a
 * `{name, owner}` term (DescribeImages with the owner, IncludeDeprecated, only `available` images kept; KP
 * pkg/providers/amifamily/ami.go). More than one would leave Karpenter to pick the newest, which is not a pin.
 */
export async function countNameMatches(amis: readonly ResolvedAmi[], aws: AwsOptions, log: Logger): Promise<ResolvedAmi[]> {
  const pinnable = amis.filter((a) => a.usable && a.owner !== undefined);
  if (pinnable.length === 0) return [...amis];
  const { ssm, ec2 } = awsClients(aws, log);
  try {
    const region = await clientRegion(ssm);
    const owners = [...new Set(pinnable.map((a) => a.owner!))];
    const found = await describeImages(
      ec2,
      { Owners: owners, Filters: [{ Name: 'name', Values: [...new Set(pinnable.map((a) => a.name))] }, { Name: 'state', Values: ['available'] }] },
      region,
      log,
    );
    return amis.map((a) =>
      a.usable && a.owner !== undefined
        ? { ...a, nameMatches: found.filter((i) => i.name === a.name && i.ownerId === a.owner).length }
        : a,
    );
  } finally {
    ssm.destroy();
    ec2.destroy();
  }
}

/**
 * `pin`: the images a class's id and exact-name terms select now, as EC2 describes them (their architecture and name):
 * what Karpenter would list in the class's `status.amis`, for files read without a cluster. Images that are gone are
 * left out.
 */
export async function describeSelectedImages(
  select: { ids: readonly string[]; names: ReadonlyArray<{ name: string; owner: string }> },
  aws: AwsOptions,
  log: Logger,
): Promise<ImageView[]> {
  if (select.ids.length === 0 && select.names.length === 0) return [];
  const { ssm, ec2 } = awsClients(aws, log);
  try {
    const region = await clientRegion(ssm);
    const byId = select.ids.length === 0 ? [] : await describeImages(ec2, { Filters: [{ Name: 'image-id', Values: [...new Set(select.ids)] }] }, region, log);
    const owners = [...new Set(select.names.map((n) => n.owner))];
    const byName =
      select.names.length === 0
        ? []
        : await describeImages(ec2, { Owners: owners, Filters: [{ Name: 'name', Values: [...new Set(select.names.map((n) => n.name))] }] }, region, log);
    return [...byId, ...byName];
  } finally {
    ssm.destroy();
    ec2.destroy();
  }
}

/** One `latest` query per kept family (its first series): the release `latest` would pin for it now. */
function latestProbes(queries: readonly AmiQuery[], kept: ReadonlyArray<{ family: AmiFamily }>): AmiQuery[] {
  return kept.flatMap((k) => {
    const q = queries.find((x) => x.family === k.family);
    return q === undefined ? [] : [{ ...q, release: 'latest' }];
  });
}

/** image_id first, then the metadata of each query, without duplicates (AL2 nvidia and neuron share a parameter). */
function parameterNames(queries: readonly AmiQuery[]): string[] {
  const names = queries.flatMap((q) => [ssmParameterPath(q), ...Object.values(ssmMetadataPaths(q))]);
  return [...new Set(names)];
}

function metadataOf(q: AmiQuery, parameters: ReadonlyMap<string, string>): ReleaseMetadata {
  const paths = ssmMetadataPaths(q);
  return {
    releaseVersion: paths.releaseVersion && parameters.get(paths.releaseVersion),
    imageName: paths.imageName && parameters.get(paths.imageName),
    imageVersion: paths.imageVersion && parameters.get(paths.imageVersion),
  };
}

async function readParameters(
  ssm: SSMClient,
  names: string[],
  region: string,
  log: Logger,
): Promise<Map<string, string>> {
  const batches: string[][] = [];
  for (let i = 0; i < names.length; i += SSM_BATCH_SIZE) batches.push(names.slice(i, i + SSM_BATCH_SIZE));
  const answers = await Promise.all(
    batches.map(async (batch) => {
      log.debug(`SSM GetParameters in ${region}: ${batch.join(', ')}`);
      try {
        return await ssm.send(new GetParametersCommand({ Names: batch }));
      } catch (err) {
        throw ssmFailure(err, batch, region, process.env);
      }
    }),
  );
  const values = new Map<string, string>();
  for (const answer of answers) {
    for (const p of answer.Parameters ?? [])
      if (p.Name !== undefined && p.Value !== undefined) values.set(p.Name, p.Value);
    // Missing metadata is not an error: the image name in EC2 still names the release.
    for (const name of answer.InvalidParameters ?? []) log.debug(`SSM parameter ${name} does not exist in ${region}`);
  }
  return values;
}

async function describeImages(
  ec2: EC2Client,
  select: { Filters: Array<{ Name: string; Values: string[] }>; Owners?: string[] },
  region: string,
  log: Logger,
): Promise<ImageView[]> {
  const images: ImageView[] = [];
  let nextToken: string | undefined;
  do {
    log.debug(`EC2 DescribeImages in ${region}: ${select.Owners ? `owners ${select.Owners.join(', ')}, ` : ''}${select.Filters.map((f) => `${f.Name} ${f.Values.join(', ')}`).join('; ')}`);
    // The image-id filter, not ImageIds: naming a deregistered ID in ImageIds can fail the whole call with
    // InvalidAMIID.NotFound (EC2 API reference, DescribeImages), while the filter simply leaves it out, so one missing
    // image is reported as such. IncludeDeprecated: pinned parameters keep pointing at deprecated images.
    let page: DescribeImagesCommandOutput;
    try {
      page = await ec2.send(new DescribeImagesCommand({ ...select, IncludeDeprecated: true, NextToken: nextToken }));
    } catch (err) {
      throw ec2Failure(err, region, process.env);
    }
    for (const image of page.Images ?? []) if (image.ImageId !== undefined) images.push(imageView(image));
    nextToken = page.NextToken;
  } while (nextToken);
  return images;
}

function imageView(image: Image): ImageView {
  return {
    id: image.ImageId!,
    name: image.Name,
    state: image.State,
    architecture: image.Architecture,
    deprecationTime: image.DeprecationTime,
    creationDate: image.CreationDate,
    ...(image.OwnerId !== undefined ? { ownerId: image.OwnerId } : {}),
  };
}

/**
 * `--release latest~N` / `--min-age`: lists each family's releases (GetParametersByPath on its release folders,
 * DOMAIN.md §3.3), dates them (the name, and EC2's CreationDate of their images), and chooses one per family
 * (release-policy.ts). The queries come back pinned to the chosen release, so what is verified and pinned is exactly it.
 */
async function chooseReleases(
  ssm: SSMClient,
  ec2: EC2Client,
  queries: readonly AmiQuery[],
  policy: ReleasePolicy,
  region: string,
  log: Logger,
  kept: ReadonlySet<AmiFamily> = new Set(),
): Promise<{ queries: AmiQuery[]; recorded: RecordedPolicy; newer: Map<AmiFamily, string | null> }> {
  const now = new Date();
  const families = [...new Set(queries.map((q) => q.family))];
  const results = await Promise.all(
    families.map(async (family) => {
      const mine = queries.filter((q) => q.family === family);
      const folders = [...new Set(mine.map(releaseFolder).filter((f): f is string => f !== undefined))];
      // Folders are listed side by side; each one's pages follow its NextToken, one after another.
      const listed = await Promise.all(folders.map((folder) => listParameters(ssm, folder, region, log)));
      const parameters = new Map(listed.flatMap((m) => [...m]));
      const dated = await dateReleases(ec2, listedReleases(mine, parameters), policy, now, region, log);
      return chooseRelease(family, mine[0]!.kubernetesVersion, dated, policy, now);
    }),
  );
  // A kept family is pinned at its kept release whatever the policy says now: what it says is only reported.
  const problems = results.flatMap((r) => ('problem' in r && !kept.has(r.problem.family) ? [r.problem] : []));
  if (problems.length > 0) {
    const hint = problems.length === 1 ? problems[0]!.hint : problems.map((p) => `${p.family}: ${p.hint}`).join('; ');
    throw new UsageError(problems.map((p) => p.message).join('\n'), { hint });
  }
  const all = results.flatMap((r) => ('choice' in r ? [r.choice] : []));
  const choices = all.filter((c) => !kept.has(c.family));
  const asked = releasePolicyText(policy);
  for (const c of choices) log.info(`Release policy ${asked}: ${releaseChoiceText(c)}`);
  const byFamily = new Map<string, ReleaseChoice>(choices.map((c) => [c.family, c]));
  return {
    queries: queries.map((q) => (kept.has(q.family) ? q : { ...q, release: byFamily.get(q.family)!.release })),
    recorded: {
      release: policy.behind === 0 ? 'latest' : `latest~${policy.behind}`,
      minAge: policy.minAge?.text ?? null,
      families: choices,
    },
    newer: new Map([...kept].map((f) => [f, all.find((c) => c.family === f)?.release ?? null])),
  };
}

/** Every parameter under `folder`, recursively, paged as SSM pages it (at most 10 a page). */
async function listParameters(ssm: SSMClient, folder: string, region: string, log: Logger): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  let nextToken: string | undefined;
  do {
    log.debug(`SSM GetParametersByPath in ${region}: ${folder} (recursive)`);
    let page;
    try {
      page = await ssm.send(new GetParametersByPathCommand({ Path: folder, Recursive: true, NextToken: nextToken }));
    } catch (err) {
      throw ssmFailure(err, [folder], region, process.env, 'GetParametersByPath');
    }
    for (const p of page.Parameters ?? []) if (p.Name !== undefined && p.Value !== undefined) values.set(p.Name, p.Value);
    nextToken = page.NextToken;
  } while (nextToken);
  return values;
}

// Dating a release takes one DescribeImages of its images. Without --min-age only the newest N+1 matter; with it,
// releases are dated newest first, ten at a time, until enough qualify: a family can list a hundred releases.
const DATE_BATCH = 10;

async function dateReleases(
  ec2: EC2Client,
  releases: readonly ListedRelease[],
  policy: ReleasePolicy,
  now: Date,
  region: string,
  log: Logger,
): Promise<ListedRelease[]> {
  const out: ListedRelease[] = releases.map((r) => ({ ...r }));
  const minAge = policy.minAge;
  const batch = minAge === undefined ? policy.behind + 1 : DATE_BATCH;
  for (let i = 0; i < out.length; i += batch) {
    const chunk = out.slice(i, i + batch);
    const ids = [...new Set(chunk.flatMap((r) => r.imageIds))];
    const created = new Map(
      (await describeImages(ec2, { Filters: [{ Name: 'image-id', Values: ids }] }, region, log)).map((img) => [img.id, img.creationDate]),
    );
    for (const r of chunk) {
      const published = publishedAt(r.release, r.imageIds.map((id) => created.get(id)));
      if (published !== undefined) r.published = published;
    }
    if (minAge === undefined) break;
    const qualifying = out
      .slice(0, i + batch)
      .filter((r) => r.published !== undefined && now.getTime() - r.published.getTime() >= minAge.ms);
    if (qualifying.length > policy.behind) break;
  }
  return out;
}
