// EC2 DescribeImages over the EC2 query protocol: a form-encoded `Action=DescribeImages&Version=2016-11-15&...`
// with lists flattened as `ImageId.1`, `Owner.1`, `Filter.1.Name`, `Filter.1.Value.1` (@aws-sdk/core
// AwsEc2QueryProtocol). Semantics follow the EC2 API Reference for DescribeImages and the user guide's
// "Deprecate an AMI": deprecated images are hidden from other accounts unless asked for by ID or IncludeDeprecated.
import { isDeprecatedAt } from './images.js';
import { describeImagesXml, ec2Error } from './ec2-xml.js';
import { wildcardMatcher } from './lookup.js';
import type { AmiCatalog, AwsCallContext, AwsReply, CatalogImage } from './types.js';

// An AMI ID is `ami-` and 8 (older) or 17 hex digits; anything else is InvalidAMIID.Malformed.
const IMAGE_ID = /^ami-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
const OWNER_ALIASES = ['amazon', 'aws-marketplace', 'aws-backup-vault'];

const FILTERS: Record<string, (image: CatalogImage) => string[]> = {
  name: (i) => [i.name],
  architecture: (i) => [i.architecture],
  state: (i) => [i.state],
  'image-id': (i) => [i.imageId],
  'owner-id': (i) => [i.ownerId],
  'owner-alias': (i) => (i.ownerAlias ? [i.ownerAlias] : []),
  'is-public': (i) => [String(i.public)],
  platform: (i) => (i.platform ? [i.platform] : []),
  description: (i) => (i.description ? [i.description] : []),
  'image-type': () => ['machine'],
  'root-device-type': () => ['ebs'],
  'virtualization-type': () => ['hvm'],
  'tag-key': (i) => Object.keys(i.tags),
};

/** `Prefix.1`, `Prefix.2`, ... in index order. */
function indexed(params: URLSearchParams, prefix: string): string[] {
  const re = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)$`);
  return [...params.entries()]
    .flatMap(([key, value]) => {
      const m = re.exec(key);
      return m ? [[Number(m[1]), value] as const] : [];
    })
    .sort((a, b) => a[0] - b[0])
    .map(([, value]) => value);
}

interface Filter {
  name: string;
  values: string[];
}

function filtersOf(params: URLSearchParams): Filter[] {
  const numbers = new Set([...params.keys()].flatMap((k) => /^Filter\.(\d+)\.Name$/.exec(k)?.[1] ?? []));
  return [...numbers]
    .sort((a, b) => Number(a) - Number(b))
    .map((n) => ({ name: params.get(`Filter.${n}.Name`)!, values: indexed(params, `Filter.${n}.Value`) }));
}

function fieldOf(name: string): ((image: CatalogImage) => string[]) | undefined {
  if (name.startsWith('tag:')) {
    const key = name.slice('tag:'.length);
    return (i) => (i.tags[key] === undefined ? [] : [i.tags[key]]);
  }
  return FILTERS[name];
}

/** Values within one filter are ORed, filters are ANDed (EC2 API Reference, "Filter"). */
function filterMatcher(filters: Filter[]): (image: CatalogImage) => boolean {
  const checks = filters.map((f) => {
    const field = fieldOf(f.name)!;
    const patterns = f.values.map(wildcardMatcher);
    return (image: CatalogImage) => field(image).some((v) => patterns.some((matches) => matches(v)));
  });
  return (image) => checks.every((check) => check(image));
}

function ownerMatcher(owners: string[], accountId: string): (image: CatalogImage) => boolean {
  return (image) =>
    owners.length === 0 ||
    owners.some((o) => (o === 'self' ? image.ownerId === accountId : o === image.ownerId || o === image.ownerAlias));
}

function describeImages(catalog: AmiCatalog, params: URLSearchParams, ctx: AwsCallContext): AwsReply {
  const imageIds = indexed(params, 'ImageId');
  const owners = indexed(params, 'Owner');
  const filters = filtersOf(params);
  const malformed = imageIds.find((id) => !IMAGE_ID.test(id));
  if (malformed !== undefined)
    return ec2Error('InvalidAMIID.Malformed', `Invalid id: "${malformed}" (expecting "ami-...")`, ctx);
  const badOwner = owners.find((o) => o !== 'self' && !OWNER_ALIASES.includes(o) && !/^\d{12}$/.test(o));
  if (badOwner !== undefined) return ec2Error('InvalidUserID.Malformed', `Invalid user id: "${badOwner}"`, ctx);
  const badFilter = filters.find((f) => fieldOf(f.name) === undefined);
  if (badFilter) return ec2Error('InvalidParameterValue', `The filter '${badFilter.name}' is invalid`, ctx);
  const maxResults = params.get('MaxResults');
  if (maxResults != null && imageIds.length > 0) {
    return ec2Error(
      'InvalidParameterCombination',
      'The parameter imageIdsSet cannot be used with the parameter maxResults',
      ctx,
    );
  }
  const pageSize = maxResults == null ? undefined : Number(maxResults);
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 5 && pageSize <= 1000)) {
    return ec2Error(
      'InvalidParameterValue',
      `Value ( ${maxResults} ) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`,
      ctx,
    );
  }

  // Images "available to you": public ones and the account's own.
  const visible = (image: CatalogImage | undefined): image is CatalogImage =>
    image !== undefined && (image.public || image.ownerId === ctx.accountId);
  let candidates: CatalogImage[];
  if (imageIds.length > 0) {
    // An unknown well-formed ID is an error; a recently deregistered one just yields nothing (DescribeImages docs).
    const missing = imageIds.filter((id) => !visible(catalog.images.get(id)) && !catalog.deregisteredImageIds.has(id));
    if (missing.length === 1)
      return ec2Error('InvalidAMIID.NotFound', `The image id '[${missing[0]}]' does not exist`, ctx);
    if (missing.length > 1)
      return ec2Error('InvalidAMIID.NotFound', `The image ids '[${missing.join(', ')}]' do not exist`, ctx);
    candidates = [...new Set(imageIds)].map((id) => catalog.images.get(id)).filter(visible);
  } else {
    const includeDeprecated = params.get('IncludeDeprecated') === 'true';
    candidates = [...catalog.images.values()].filter(
      (i) => visible(i) && (includeDeprecated || i.ownerId === ctx.accountId || !isDeprecatedAt(i, ctx.now)),
    );
  }
  const matches = filterMatcher(filters);
  const ownedBy = ownerMatcher(owners, ctx.accountId);
  const images = candidates
    .filter((i) => ownedBy(i) && matches(i))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.imageId < b.imageId ? -1 : 1));

  let offset = 0;
  const token = params.get('NextToken');
  if (token != null) {
    offset = Number(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset <= 0)
      return ec2Error('InvalidPaginationToken', `Invalid pagination token: ${token}`, ctx);
  }
  const end = pageSize === undefined ? images.length : offset + pageSize;
  const next = end < images.length ? Buffer.from(String(end)).toString('base64url') : undefined;
  return describeImagesXml(images.slice(offset, end), next, ctx);
}

export function ec2Reply(catalog: AmiCatalog, params: URLSearchParams, ctx: AwsCallContext): AwsReply {
  const action = params.get('Action') ?? '';
  if (action !== 'DescribeImages') {
    return ec2Error('InvalidAction', `The action ${action} is not valid for this web service.`, ctx);
  }
  if (params.get('DryRun') === 'true') {
    return ec2Error('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', ctx, 412);
  }
  return describeImages(catalog, params, ctx);
}

export function ec2Fault(failure: 'throttle' | 'access-denied', action: string, ctx: AwsCallContext): AwsReply {
  // EC2 throttles with 503 RequestLimitExceeded and denies with 403 UnauthorizedOperation (EC2 API "Error codes").
  if (failure === 'throttle') return ec2Error('RequestLimitExceeded', 'Request limit exceeded.', ctx, 503);
  return ec2Error(
    'UnauthorizedOperation',
    `You are not authorized to perform this operation. User: arn:aws:sts::${ctx.accountId}:assumed-role/karp-drift-sandbox/session ` +
      `is not authorized to perform: ec2:${action} because no identity-based policy allows the ec2:${action} action`,
    ctx,
    403,
  );
}
