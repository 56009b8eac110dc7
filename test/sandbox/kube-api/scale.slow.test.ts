// The API server's behaviour under load, proved structurally (counters and protocol, never wall-clock speed):
// cached serialization, the request log's query strings, continue tokens expired by etcd compaction, a watcher that
// falls behind closed with 410, the event TTL, and a shutdown that closes every connection.
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import {
  startKubeApiServer,
  type KubeApiServer,
  type KubeApiServerOptions,
} from "../../../src/sandbox/kube-api/server.js";
import { node, rawRequest } from "../kube-api-sandbox.js";

let server: KubeApiServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(
  options: KubeApiServerOptions = {},
): Promise<KubeApiServer> {
  server = await startKubeApiServer(options);
  return server;
}

const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default", labels: { app: "web" } },
  spec: {
    nodeName: "n1",
    containers: [{ name: "web", image: "public.ecr.aws/nginx/nginx:1.27" }],
  },
});

const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** A watch whose reader can be paused: a client that falls behind. */
function openWatch(s: KubeApiServer, path: string) {
  const lines: string[] = [];
  let ended = false;
  let buffer = "";
  const req = request(`${s.url}${path}`, {
    ca: s.caData,
    headers: { Authorization: `Bearer ${s.token}` },
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on("response", resolve);
    req.on("error", reject);
  });
  req.end();
  void response.then((res) => {
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      lines.push(...parts.filter((l) => l !== ""));
    });
    res.on("end", () => (ended = true));
    res.on("close", () => (ended = true));
  });
  return { lines, response, ended: () => ended, destroy: () => req.destroy() };
}

describe("the sandbox API server at scale", () => {
  it("serializes each stored version once, however often it is listed", async () => {
    const s = await start();
    for (let i = 0; i < 200; i++) s.store.create("pods", pod(`web-${i}`));
    const first = await rawRequest(s, "GET", "/api/v1/pods");
    const after = s.store.objects.serializations;
    const second = await rawRequest(
      s,
      "GET",
      "/api/v1/namespaces/default/pods",
    );
    expect(JSON.parse(second.body).items).toHaveLength(200);
    expect(second.body.slice(second.body.indexOf('"items"'))).toBe(
      first.body.slice(first.body.indexOf('"items"')),
    );
    expect(s.store.objects.serializations).toBe(after);
    // A write makes a new version: only that one is serialized again.
    const one = s.store.get("pods", "web-7", "default")!;
    s.store.update("pods", {
      ...one,
      metadata: { ...one.metadata, labels: { app: "web", v: "2" } },
    });
    await rawRequest(s, "GET", "/api/v1/pods");
    expect(s.store.objects.serializations).toBe(after + 1);
  });

  it("records each request with its query string", async () => {
    const s = await start();
    await rawRequest(
      s,
      "GET",
      "/api/v1/pods?limit=500&labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1",
    );
    expect(s.requests.at(-1)).toMatchObject({
      verb: "list",
      resource: "pods",
      query: {
        limit: "500",
        labelSelector: "app=web",
        fieldSelector: "spec.nodeName=n1",
      },
      code: 200,
    });
    await rawRequest(s, "GET", "/version");
    expect(s.requests.at(-1)).toMatchObject({ path: "/version", query: {} });
  });

  it("expires continue tokens after an etcd compaction, with an inconsistent continuation in the 410", async () => {
    // The compactor runs on its own timer; here it is out of the way and run by hand.
    const s = await start({ compactionIntervalMs: 3_600_000 });
    for (let i = 0; i < 10; i++) s.store.create("nodes", node(`node-${i}`));
    const first = JSON.parse(
      (await rawRequest(s, "GET", "/api/v1/nodes?limit=4")).body,
    ) as { metadata: { continue: string } };
    const token = encodeURIComponent(first.metadata.continue);
    // A compaction to the revision of the previous compaction: the token (taken after it) still reads.
    s.store.objects.compactEtcd();
    expect(
      (await rawRequest(s, "GET", `/api/v1/nodes?limit=4&continue=${token}`))
        .status,
    ).toBe(200);
    s.store.create("nodes", node("node-late"));
    s.store.objects.compactEtcd(); // to the token's own revision: still readable
    expect(
      (await rawRequest(s, "GET", `/api/v1/nodes?limit=4&continue=${token}`))
        .status,
    ).toBe(200);
    s.store.objects.compactEtcd(); // past it

    const expired = await rawRequest(
      s,
      "GET",
      `/api/v1/nodes?limit=4&continue=${token}`,
    );
    expect(expired.status).toBe(410);
    const status = JSON.parse(expired.body) as {
      reason: string;
      code: number;
      message: string;
      metadata: { continue?: string };
    };
    expect(status).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Expired",
      code: 410,
    });
    expect(status.message).toBe(
      "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
    );
    // The token in the Status continues after the same key at the latest revision: node-late shows up.
    const rest = JSON.parse(
      (
        await rawRequest(
          s,
          "GET",
          `/api/v1/nodes?continue=${encodeURIComponent(status.metadata.continue ?? "")}`,
        )
      ).body,
    ) as {
      items: Array<{ metadata: { name: string } }>;
      metadata: { resourceVersion: string };
    };
    expect(rest.items.map((n) => n.metadata.name)).toEqual([
      "node-4",
      "node-5",
      "node-6",
      "node-7",
      "node-8",
      "node-9",
      "node-late",
    ]);
    expect(rest.metadata.resourceVersion).toBe(
      String(s.store.objects.resourceVersion),
    );
  });

  it("compacts etcd on its interval", async () => {
    const s = await start({ compactionIntervalMs: 20 });
    s.store.create("nodes", node("a"));
    const revision = s.store.objects.resourceVersion;
    await until(
      () => s.store.objects.etcdCompactedRevision >= revision,
      "two compactions",
    );
  });

  it("closes a watcher that falls behind with an ERROR 410 Expired", async () => {
    const s = await start({ watchBufferBytes: 64 * 1024 });
    const w = openWatch(s, "/api/v1/namespaces/default/pods?watch=true");
    const res = await w.response;
    await until(() => s.store.objects.resourceVersion > 0, "the watch");
    res.pause(); // the client stops reading
    // Writes until the watcher is dropped: the kernel's socket buffers take some megabytes first.
    const big = "x".repeat(4096);
    for (let i = 0; i < 20_000 && !w.ended(); i++) {
      s.store.create("pods", {
        ...pod(`web-${i}`),
        metadata: { ...pod(`web-${i}`).metadata, annotations: { big } },
      });
      if (i % 500 === 499)
        await new Promise((resolve) => setImmediate(resolve));
    }
    res.resume();
    await until(w.ended, "the end of the watch");
    const last = JSON.parse(w.lines.at(-1) ?? "{}") as {
      type?: string;
      object?: { code?: number; reason?: string; message?: string };
    };
    expect(last.type).toBe("ERROR");
    expect(last.object).toMatchObject({ code: 410, reason: "Expired" });
    expect(last.object?.message).toMatch(
      /^too old resource version: \d+ \(\d+\): the watcher fell behind/,
    );
    // Fewer events than writes reached it: it was cut, not drained.
    expect(w.lines.length - 1).toBeLessThan(20_000);
  });

  it("writes nothing after a watch ended, though bookmarks fall due before its connection closes", async () => {
    // A client that reads slowly keeps its connection open after the watch's timeoutSeconds ended it (the end is
    // queued behind what it has not read); a bookmark written then was a write after end, which crashed the sandbox
    // in the middle of a large rollout.
    const s = await start({
      watchBufferBytes: 1024 ** 3,
      bookmarkIntervalMs: 20,
    });
    const w = openWatch(
      s,
      // 3 s: time to create the 4,000 pods on a loaded machine before the watch ends (1 s lost some under load).
      "/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=3",
    );
    const res = await w.response;
    res.pause();
    const big = "x".repeat(4096);
    for (let i = 0; i < 4_000; i++) {
      s.store.create("pods", {
        ...pod(`web-${i}`),
        metadata: { ...pod(`web-${i}`).metadata, annotations: { big } },
      });
      if (i % 500 === 499)
        await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 3_500)); // past the timeout, bookmarks still due every 20 ms
    res.resume();
    await until(w.ended, "the end of the watch");
    expect(w.lines.filter((l) => l.includes('"type":"ADDED"')).length).toBe(
      4_000,
    );
  });

  it("ends every watch with 410 on faults.expireWatches()", async () => {
    const s = await start();
    const w = openWatch(s, "/api/v1/nodes?watch=true");
    await w.response;
    s.faults.expireWatches();
    await until(w.ended, "the end of the watch");
    expect(JSON.parse(w.lines.at(-1) ?? "{}")).toMatchObject({
      type: "ERROR",
      object: { code: 410, reason: "Expired" },
    });
  });

  it("deletes events older than the event TTL", async () => {
    let now = new Date("2026-11-25T10:00:00Z");
    const s = await start({ eventTtlSeconds: 0.05, now: () => now });
    const event = (name: string) => ({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "default" },
      involvedObject: { kind: "Node", name: "n1" },
      reason: "Evicted",
      message: "Evicted pod",
    });
    s.store.create("events", event("old"));
    now = new Date("2026-11-25T10:00:01Z");
    s.store.create("events", event("new"));
    await until(
      () => s.store.list("events").length === 1,
      "the old event to expire",
    );
    expect(s.store.list("events").map((e) => e.metadata.name)).toEqual(["new"]);
  });

  it("stops at once with watches and keep-alive connections open", async () => {
    const s = await start();
    const w = openWatch(s, "/api/v1/nodes?watch=true");
    await w.response;
    await s.stop();
    server = undefined;
    await until(w.ended, "the watch to be closed by stop()");
  });
});
