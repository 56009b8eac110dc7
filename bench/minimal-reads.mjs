// The floor for reading a cluster: the same collections a command lists, with the same page size, each list's pages
// one after another (a continue token comes with its page) and the lists side by side, as client-go's pagers run, over
// keep-alive HTTPS connections, gzip asked for (and decompressed as the CLI does), each page JSON.parsed, and nothing
// else (no kubeconfig library, no views, no checks, no AWS).
// `node bench/minimal-reads.mjs <spec.json>`, where spec.json is { server, caData (the CA's PEM), token, urls: [path
// and query of each first page] } (bench/upgrade.mjs records the command's own first pages to make it). Prints the
// number of objects read.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createGunzip } from 'node:zlib';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const agent = new Agent({ keepAlive: true, ca: spec.caData });
const headers = { Authorization: `Bearer ${spec.token}`, Accept: 'application/json', 'Accept-Encoding': 'gzip' };

function get(path) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, spec.server), { agent, headers }, (res) => {
      // 64 KiB pieces, as the CLI decompresses (src/cluster/request.ts): with zlib's default 16 KiB each page makes four
      // times the round trips to the thread pool, and both read ~15% slower on `large`.
      const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip({ chunkSize: 64 * 1024 })) : res;
      const chunks = [];
      body.on('data', (c) => chunks.push(c));
      // 404 is an answer too: a command may look for an object that is not there (the lock's Lease).
      body.on('end', () => (res.statusCode === 200 || res.statusCode === 404 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
      body.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

let objects = 0;
async function list(first) {
  let url = new URL(first, spec.server);
  for (;;) {
    const page = await get(url.pathname + url.search);
    objects += page.items?.length ?? 0;
    if (!page.metadata?.continue) break;
    url = new URL(first, spec.server);
    url.searchParams.set('continue', page.metadata.continue);
  }
}
await Promise.all(spec.urls.map(list));
agent.destroy();
console.log(`${objects} objects`);
