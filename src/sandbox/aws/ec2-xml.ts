// EC2 query-protocol responses. Element names are the `xmlName`s of the SDK's schema
// (@aws-sdk/client-ec2 schemas_0.js `Image$`, `DescribeImagesResult$`); lists wrap each member in `<item>`.
import type { AwsCallContext, AwsReply, CatalogImage } from './types.js';

const NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

function headers(ctx: Pick<AwsCallContext, 'requestId'>): Record<string, string> {
  return { 'Content-Type': 'text/xml;charset=UTF-8', 'x-amzn-RequestId': ctx.requestId };
}

export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function element(name: string, value: string | boolean | undefined): string {
  return value === undefined ? '' : `<${name}>${xmlEscape(String(value))}</${name}>`;
}

export function imageXml(image: CatalogImage): string {
  const tags = Object.entries(image.tags)
    .map(([key, value]) => `<item>${element('key', key)}${element('value', value)}</item>`)
    .join('');
  const stateReason = image.stateReason
    ? `<stateReason>${element('code', image.stateReason.code)}${element('message', image.stateReason.message)}</stateReason>`
    : '';
  return [
    '<item>',
    element('imageId', image.imageId),
    element('imageLocation', `${image.ownerAlias ?? image.ownerId}/${image.name}`),
    element('imageState', image.state),
    element('imageOwnerId', image.ownerId),
    element('creationDate', image.creationDate),
    element('isPublic', image.public),
    element('architecture', image.architecture),
    element('imageType', 'machine'),
    element('name', image.name),
    element('description', image.description),
    element('imageOwnerAlias', image.ownerAlias),
    element('rootDeviceType', 'ebs'),
    element('rootDeviceName', image.platform === 'windows' ? '/dev/sda1' : '/dev/xvda'),
    element('virtualizationType', 'hvm'),
    element('hypervisor', 'xen'),
    element('enaSupport', true),
    element('platform', image.platform),
    element('platformDetails', image.platformDetails),
    element('usageOperation', image.usageOperation),
    element('deprecationTime', image.deprecationTime),
    stateReason,
    tags ? `<tagSet>${tags}</tagSet>` : '',
    '</item>',
  ].join('');
}

export function describeImagesXml(
  images: CatalogImage[],
  nextToken: string | undefined,
  ctx: AwsCallContext,
): AwsReply {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<DescribeImagesResponse xmlns="${NAMESPACE}">` +
    element('requestId', ctx.requestId) +
    `<imagesSet>${images.map(imageXml).join('')}</imagesSet>` +
    element('nextToken', nextToken) +
    '</DescribeImagesResponse>';
  return { status: 200, headers: headers(ctx), body };
}

/**
 * EC2's error document (EC2 API Reference, "Error codes"): `<Response><Errors><Error>` with `Code` and `Message`;
 * the SDK reads `Errors.Error.Code` (@aws-sdk/core AwsQueryProtocol `loadQueryErrorCode`) and names the error after it.
 */
export function ec2Error(
  code: string,
  message: string,
  ctx: Pick<AwsCallContext, 'requestId'>,
  status = 400,
): AwsReply {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Response><Errors><Error>${element('Code', code)}${element('Message', message)}</Error></Errors>` +
    `${element('RequestID', ctx.requestId)}</Response>`;
  return { status, headers: headers(ctx), body, errorCode: code };
}
