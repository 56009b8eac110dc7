// kube-apiserver's validation of a ConfigMap (pkg/apis/core/validation/validation.go ValidateConfigMap): keys of
// `[-._a-zA-Z0-9]+`, no key in both data and binaryData, binaryData values base64 (the JSON decoding of []byte), and
// the whole of keys and values at most MaxSecretSize, 1 MiB: what karp-drift's run records must stay under.
import type { FieldCause } from './crd-validation.js';
import type { KubeObject } from './types.js';
import { cause } from './strategies.js';

export const MAX_CONFIGMAP_BYTES = 1024 * 1024;
const KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function configMapCauses(object: KubeObject): FieldCause[] {
  const data = (object as { data?: Record<string, unknown> }).data ?? {};
  const binary = (object as { binaryData?: Record<string, unknown> }).binaryData ?? {};
  const causes: FieldCause[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    if (!KEY.test(key)) causes.push(cause('FieldValueInvalid', `data[${key}]`, `Invalid value: ${JSON.stringify(key)}: a valid config key must consist of alphanumeric characters, '-', '_' or '.'`));
    size += key.length + Buffer.byteLength(String(value));
  }
  for (const [key, value] of Object.entries(binary)) {
    if (!KEY.test(key)) causes.push(cause('FieldValueInvalid', `binaryData[${key}]`, `Invalid value: ${JSON.stringify(key)}: a valid config key must consist of alphanumeric characters, '-', '_' or '.'`));
    if (key in data) causes.push(cause('FieldValueInvalid', `data[${key}]`, `Invalid value: ${JSON.stringify(key)}: duplicate of key present in binaryData`));
    if (typeof value !== 'string' || !BASE64.test(value)) causes.push(cause('FieldValueInvalid', `binaryData[${key}]`, 'Invalid value: not base64'));
    else size += key.length + Buffer.from(value, 'base64').length;
  }
  if (size > MAX_CONFIGMAP_BYTES) causes.push(cause('FieldValueTooLong', '', `Too long: must have at most ${MAX_CONFIGMAP_BYTES} bytes`));
  return causes;
}
