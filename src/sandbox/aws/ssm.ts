// SSM Parameter Store over the AWS JSON 1.1 protocol: `POST /` with `X-Amz-Target: AmazonSSM.<Operation>`.
// Errors carry `__type` in the body and `x-amzn-ErrorType` in a header; the SDK reads `__type` first
// (@smithy/core protocols/json/parseJsonBody.js `loadJsonRpcErrorCode`) and names the error after it.
import { parameterName } from './lookup.js';
import type { AmiCatalog, AwsCallContext, AwsReply, CatalogParameter } from './types.js';

const CONTENT_TYPE = 'application/x-amz-json-1.1';
// GetParameters takes at most 10 names; GetParametersByPath returns at most 10 per page (SSM API Reference).
const MAX_NAMES = 10;
const MAX_PAGE = 10;

type Input = Record<string, unknown>;

export function ssmError(type: string, message: string, ctx: Pick<AwsCallContext, 'requestId'>): AwsReply {
  return {
    status: 400,
    headers: { 'Content-Type': CONTENT_TYPE, 'x-amzn-ErrorType': type, 'x-amzn-RequestId': ctx.requestId },
    body: JSON.stringify({ __type: type, message }),
    errorCode: type,
  };
}

function ok(output: unknown, ctx: AwsCallContext): AwsReply {
  return {
    status: 200,
    headers: { 'Content-Type': CONTENT_TYPE, 'x-amzn-RequestId': ctx.requestId },
    body: JSON.stringify(output),
  };
}

function parameterOutput(p: CatalogParameter, ctx: AwsCallContext) {
  return {
    Name: p.name,
    Type: 'String',
    Value: p.value,
    Version: p.version,
    LastModifiedDate: p.lastModified.getTime() / 1000,
    // Public parameters have no account in their ARN: arn:aws:ssm:us-west-2::parameter/aws/service/...
    ARN: `arn:aws:ssm:${ctx.region}::parameter${p.name}`,
    DataType: p.dataType,
  };
}

function validation(message: string, ctx: AwsCallContext): AwsReply {
  return ssmError('ValidationException', `1 validation error detected: ${message}`, ctx);
}

function getParameter(catalog: AmiCatalog, input: Input, ctx: AwsCallContext): AwsReply {
  if (typeof input.Name !== 'string')
    return validation("Value null at 'name' failed to satisfy constraint: Member must not be null", ctx);
  const p = catalog.parameters.get(parameterName(input.Name));
  if (!p) return ssmError('ParameterNotFound', `Parameter ${input.Name} not found.`, ctx);
  return ok({ Parameter: parameterOutput(p, ctx) }, ctx);
}

function getParameters(catalog: AmiCatalog, input: Input, ctx: AwsCallContext): AwsReply {
  const names = input.Names;
  if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) {
    return validation(
      "Value null at 'names' failed to satisfy constraint: Member must have length greater than or equal to 1",
      ctx,
    );
  }
  if (names.length > MAX_NAMES) {
    return validation(
      `Value '[${names.join(', ')}]' at 'names' failed to satisfy constraint: Member must have length less than or equal to ${MAX_NAMES}`,
      ctx,
    );
  }
  const unique = [...new Set(names)];
  const found = unique.flatMap((n) => {
    const p = catalog.parameters.get(parameterName(n));
    return p ? [parameterOutput(p, ctx)] : [];
  });
  const invalid = unique.filter((n) => !catalog.parameters.has(parameterName(n)));
  return ok({ Parameters: found, InvalidParameters: invalid }, ctx);
}

interface PageToken {
  path: string;
  recursive: boolean;
  offset: number;
}

function readToken(token: string): PageToken | undefined {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<PageToken>;
    return typeof t.path === 'string' && typeof t.recursive === 'boolean' && typeof t.offset === 'number'
      ? (t as PageToken)
      : undefined;
  } catch {
    return undefined;
  }
}

function getParametersByPath(catalog: AmiCatalog, input: Input, ctx: AwsCallContext): AwsReply {
  const path = input.Path;
  if (typeof path !== 'string')
    return validation("Value null at 'path' failed to satisfy constraint: Member must not be null", ctx);
  if (!path.startsWith('/')) {
    return ssmError(
      'ValidationException',
      `The parameter path ${path} is not valid. Parameter paths must begin with a forward slash "/".`,
      ctx,
    );
  }
  const maxResults = input.MaxResults === undefined ? MAX_PAGE : Number(input.MaxResults);
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_PAGE) {
    return validation(
      `Value '${String(input.MaxResults)}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to ${MAX_PAGE}`,
      ctx,
    );
  }
  const recursive = input.Recursive === true;
  let offset = 0;
  if (input.NextToken !== undefined) {
    const token = typeof input.NextToken === 'string' ? readToken(input.NextToken) : undefined;
    if (!token || token.path !== path || token.recursive !== recursive) {
      return ssmError('InvalidNextToken', 'The specified token is not valid.', ctx);
    }
    offset = token.offset;
  }
  // A path names a folder: `/a/b` and `/a/b/` both list what is below `/a/b/`; without Recursive only one level.
  const folder = path.endsWith('/') ? path : `${path}/`;
  const matching = [...catalog.parameters.values()]
    .filter((p) => p.name.startsWith(folder) && (recursive || !p.name.slice(folder.length).includes('/')))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const page = matching.slice(offset, offset + maxResults);
  const next = offset + maxResults < matching.length ? offset + maxResults : undefined;
  return ok(
    {
      Parameters: page.map((p) => parameterOutput(p, ctx)),
      ...(next === undefined
        ? {}
        : { NextToken: Buffer.from(JSON.stringify({ path, recursive, offset: next })).toString('base64url') }),
    },
    ctx,
  );
}

export function ssmReply(catalog: AmiCatalog, operation: string, input: Input, ctx: AwsCallContext): AwsReply {
  switch (operation) {
    case 'GetParameter':
      return getParameter(catalog, input, ctx);
    case 'GetParameters':
      return getParameters(catalog, input, ctx);
    case 'GetParametersByPath':
      return getParametersByPath(catalog, input, ctx);
    default:
      return ssmError('UnknownOperationException', `The sandbox does not emulate AmazonSSM.${operation}.`, ctx);
  }
}

/** The names an operation touches, for the resource in an AccessDeniedException message. */
function resourceOf(input: Input): string {
  const name =
    typeof input.Name === 'string' ? input.Name : Array.isArray(input.Names) ? String(input.Names[0]) : input.Path;
  return typeof name === 'string' ? parameterName(name) : '/*';
}

export function ssmFault(
  failure: 'throttle' | 'access-denied',
  operation: string,
  input: Input,
  ctx: AwsCallContext,
): AwsReply {
  if (failure === 'throttle') return ssmError('ThrottlingException', 'Rate exceeded', ctx);
  return ssmError(
    'AccessDeniedException',
    `User: arn:aws:sts::${ctx.accountId}:assumed-role/karp-drift-sandbox/session is not authorized to perform: ssm:${operation} ` +
      `on resource: arn:aws:ssm:${ctx.region}::parameter${resourceOf(input)} because no identity-based policy allows the ssm:${operation} action`,
    ctx,
  );
}
