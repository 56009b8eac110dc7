// The AWS edge: SSM GetParameters for the image_id (and metadata) parameters, then one EC2 DescribeImages for every
// ID, then the pure checks of verify.ts. The only file that imports @aws-sdk/* (STYLE.md "Pure core, thin edges").
import { DescribeImagesCommand, EC2Client, type DescribeImagesCommandOutput, type Image } from '@aws-sdk/client-ec2';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { amiQueries } from './select.js';
import { ssmMetadataPaths, ssmParameterPath, type AmiQuery } from './parameters.js';
import { resolvedAmi, verifyImage, type ImageView, type ReleaseMetadata, type ResolvedAmi } from './verify.js';
import { RuntimeFailure } from '../errors.js';
import { ec2Failure, missingParametersError, ssmFailure } from './aws-failures.js';
import { requireProfile } from './profiles.js';
import { awsClientConfig, clientRegion, type AwsOptions } from './aws-config.js';
import type { Logger } from '../logger.js';
import { testedName, type PromotedAmi, type TestedAmis } from './amis-file.js';
import { verifyPromoted } from './verify-promoted.js';
import type { AmiSelection } from './select.js';

export type { ResolvedAmi } from './verify.js';
export type { AwsOptions } from './aws-config.js';

export interface ResolvedAmis {
  region: string;
  amis: ResolvedAmi[];
}

/** GetParameters accepts at most 10 names a call (SSM API reference, GetParameters `Names`). */
export const SSM_BATCH_SIZE = 10;

export async function resolveAmis(selection: AmiSelection, aws: AwsOptions, log: Logger): Promise<ResolvedAmis> {
  return resolveAmiQueries(amiQueries(selection), aws, log);
}

/**
 * Resolves and verifies explicit queries (render, plan, upgrade). Throws unless every AMI exists and passed
 * verification. With `keepUnusable` (plan, upgrade) it throws only when nothing at all is published (the version or
 * release is wrong: exit 2); otherwise it leaves out what SSM lacks and marks what EC2 refuses `usable: false`, for the
 * plan to refuse per class (AMI-MISSING, exit 3, naming the classes and NodePools that need them).
 */
export async function resolveAmiQueries(
  queries: readonly AmiQuery[],
  aws: AwsOptions,
  log: Logger,
  options: { keepUnusable?: boolean } = {},
): Promise<ResolvedAmis> {
  const { ssm, ec2 } = awsClients(aws, log);
  try {
    const region = await clientRegion(ssm);
    if (queries.length === 0) return { region, amis: [] };
    log.info(
      `Resolving ${queries.length} EKS-optimized AMI(s) for Kubernetes ${[...new Set(queries.map((q) => q.kubernetesVersion))].join(', ')} in ${region}`,
    );
    const parameters = await readParameters(ssm, parameterNames(queries), region, log);
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
    return { region, amis: checked.map((c) => c.ami) };
  } finally {
    // Keep-alive sockets would otherwise hold the process open after the command is done.
    ssm.destroy();
    ec2.destroy();
  }
}

function awsClients(aws: AwsOptions, log: Logger): { ssm: SSMClient; ec2: EC2Client } {
  requireProfile(aws.profile, process.env);
  const config = awsClientConfig(aws, process.env, log);
  return { ssm: new SSMClient(config), ec2: new EC2Client(config) };
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
