// Response compression as kube-apiserver does it (APIResponseCompression, beta and on since 1.16): a response whose
// body is larger than 128 KiB is gzipped at level 1 when the request's Accept-Encoding lists the token `gzip`
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/writers.go: negotiateContentEncoding,
// defaultGzipThresholdBytes, defaultGzipContentEncodingLevel). Large lists of a real cluster arrive gzipped, so
// clients must decode them; kubectl's Go transport asks for gzip on its own.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** writers.go defaultGzipThresholdBytes. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** writers.go defaultGzipContentEncodingLevel: the least CPU, nearly the ratio of the higher levels. */
const GZIP_LEVEL = 1;

const gzipAsync = promisify(gzip);

/** negotiateContentEncoding: `gzip` when one comma-separated token of Accept-Encoding is exactly `gzip`. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((token) => token.trim() === 'gzip');
}

/** The body to send and its extra headers: gzipped (on libuv's thread pool) when large and accepted, else as is. */
export async function encodeBody(
  body: string,
  acceptEncoding: string | undefined,
): Promise<{ body: string | Buffer; headers: Record<string, string> }> {
  if (!acceptsGzip(acceptEncoding) || Buffer.byteLength(body) <= GZIP_THRESHOLD_BYTES) return { body, headers: {} };
  return {
    body: await gzipAsync(body, { level: GZIP_LEVEL }),
    headers: { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' },
  };
}
