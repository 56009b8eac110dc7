// kube-apiserver's response compression, as the sandbox serves it (writers.go negotiateContentEncoding and the
// 128 KiB threshold).
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, encodeBody, GZIP_THRESHOLD_BYTES } from '../../../src/sandbox/kube-api/compression.js';

describe('Accept-Encoding', () => {
  it.each<[string | undefined, boolean]>([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['deflate, gzip', true],
    [' gzip ', true],
    [undefined, false],
    ['', false],
    ['deflate', false],
    ['gzip;q=1.0', false], // kube-apiserver compares whole tokens
    ['x-gzip', false],
  ])('%j accepts gzip: %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('a response body', () => {
  const large = JSON.stringify({
    items: Array.from({ length: 2_000 }, (_, i) => ({ name: `pod-${i}`, note: 'é'.repeat(40) })),
  });
  const atThreshold = 'x'.repeat(GZIP_THRESHOLD_BYTES);

  it('larger than 128 KiB is gzipped when the client accepts it, and decodes to the same text', async () => {
    expect(Buffer.byteLength(large)).toBeGreaterThan(GZIP_THRESHOLD_BYTES);
    const encoded = await encodeBody(large, 'gzip');
    expect(encoded.headers).toEqual({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(Buffer.isBuffer(encoded.body)).toBe(true);
    expect(encoded.body.length).toBeLessThan(Buffer.byteLength(large) / 4);
    expect(gunzipSync(encoded.body as Buffer).toString('utf8')).toBe(large);
  });

  it.each<[string, string, string | undefined]>([
    ['not asked for', large, undefined],
    ['asked for another encoding', large, 'br'],
    ['not larger than 128 KiB', atThreshold, 'gzip'],
  ])('is sent as is when gzip is %s', async (_name, body, header) => {
    expect(await encodeBody(body, header)).toEqual({ body, headers: {} });
  });
});
