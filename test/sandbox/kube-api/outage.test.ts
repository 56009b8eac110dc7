// The sandbox API server's outages: it stops answering and comes back with its objects, so a test can take the
// cluster away from a run mid-wave and then re-run against the same state. `refuse` is a closed port (ECONNREFUSED),
// `hang` an open one that answers nothing (a frozen kube-apiserver): a client sees only its own timeout.
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { rawRequest, startTestCluster, type TestCluster } from '../kube-api-sandbox.js';

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const NODES = '/api/v1/nodes';
const node = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
const names = (body: string) => (JSON.parse(body) as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name);

describe('sandbox API server outages', () => {
  it('refuse: connections are refused, then it answers again on the same port with the same objects', async () => {
    cluster = await startTestCluster();
    const { server } = cluster;
    expect((await rawRequest(server, 'POST', NODES, { body: node('n1'), headers: { 'Content-Type': 'application/json' } })).status).toBe(201);
    await server.outage('refuse');
    await sleep(100); // the client's kept-alive socket sees the server's close (a reuse meanwhile would be a reset)
    await expect(rawRequest(server, 'GET', NODES)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await server.restore();
    const back = await rawRequest(server, 'GET', NODES);
    expect(back.status).toBe(200);
    expect(names(back.body)).toEqual(['n1']);
  });

  it('hang: a request gets no answer while frozen, and its answer once thawed; nothing is lost', async () => {
    cluster = await startTestCluster();
    const { server } = cluster;
    await rawRequest(server, 'POST', NODES, { body: node('n1'), headers: { 'Content-Type': 'application/json' } });
    await server.outage('hang');
    let answered = false;
    const pending = rawRequest(server, 'GET', NODES).then((r) => {
      answered = true;
      return r;
    });
    await sleep(500);
    expect(answered).toBe(false);
    await server.restore();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(names(r.body)).toEqual(['n1']);
  });

  it('hang: an open watch delivers nothing while frozen, and what happened meanwhile once thawed', async () => {
    cluster = await startTestCluster();
    const { server } = cluster;
    const { request } = await import('node:https');
    const lines: string[] = [];
    const watch = request(`${server.url}${NODES}?watch=true`, { ca: server.caData, headers: { Authorization: `Bearer ${server.token}` } }, (res) =>
      res.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter((l) => l !== ''))),
    );
    watch.on('error', () => undefined);
    watch.end();
    await sleep(200);
    await server.outage('hang');
    server.store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    await sleep(500);
    expect(lines).toEqual([]);
    await server.restore();
    await sleep(300);
    expect(lines.map((l): unknown => JSON.parse(l))).toEqual([
      expect.objectContaining({ type: 'ADDED', object: expect.objectContaining({ metadata: expect.objectContaining({ name: 'n2' }) }) }),
    ]);
    watch.destroy();
  });
});
