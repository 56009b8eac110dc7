import { invalidMessage, type FieldCause } from './crd-validation.js';
import { groupResource } from './resources.js';
import { ApiStatusError, type ResourceInfo } from './types.js';

// metav1.Status errors with the messages apimachinery pkg/api/errors/errors.go writes (NewNotFound,
// NewAlreadyExists, NewConflict, NewInvalid, NewForbidden, ...), so clients that match on reason or message
// (client-go's errors.IsConflict, kubectl's printing) behave as against kube-apiserver.

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: ApiStatusError['details'];
  code: number;
}

type Target = Pick<ResourceInfo, 'group' | 'resource'>;

const details = (r: Target, name: string) => ({
  name,
  ...(r.group ? { group: r.group } : {}),
  kind: r.resource,
});

export const notFound = (r: Target, name: string) =>
  new ApiStatusError(404, 'NotFound', `${groupResource(r)} "${name}" not found`, details(r, name));

export const alreadyExists = (r: Target, name: string) =>
  new ApiStatusError(409, 'AlreadyExists', `${groupResource(r)} "${name}" already exists`, details(r, name));

export const conflict = (r: Target, name: string, why: string) =>
  new ApiStatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResource(r)} "${name}": ${why}`,
    details(r, name),
  );

export const modifiedConflict = (r: Target, name: string) =>
  conflict(r, name, 'the object has been modified; please apply your changes to the latest version and try again');

export const forbidden = (r: Target, name: string, why: string) =>
  new ApiStatusError(
    403,
    'Forbidden',
    `${groupResource(r)}${name ? ` "${name}"` : ''} is forbidden: ${why}`,
    details(r, name),
  );

export const badRequest = (message: string) => new ApiStatusError(400, 'BadRequest', message);

export const methodNotAllowed = () =>
  new ApiStatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');

export const pathNotFound = () =>
  new ApiStatusError(404, 'NotFound', 'the server could not find the requested resource');

export function invalid(r: Pick<ResourceInfo, 'group' | 'kind'>, name: string, causes: FieldCause[]): ApiStatusError {
  return new ApiStatusError(422, 'Invalid', invalidMessage(r.kind, r.group, name, causes), {
    name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.kind,
    causes,
  });
}

export function statusBody(err: ApiStatusError): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: err.listMeta ?? {},
    status: 'Failure',
    message: err.message,
    reason: err.reason,
    ...(err.details && Object.keys(err.details).length > 0 ? { details: err.details } : {}),
    code: err.code,
  };
}

/** An unexpected failure, as kube-apiserver's InternalError wraps it. */
export function internalError(err: unknown): ApiStatusError {
  const message = err instanceof Error ? err.message : String(err);
  return new ApiStatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ reason: '', message, field: '' }],
  });
}
