// The pager against the sandbox: a continue token that expires mid-list (etcd compacted its revision, and
// kube-apiserver answers 410 Expired) ends in one full list, as client-go's pager does, with every object once.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingHttpHeaders } from "node:http";
import { get } from "node:https";
import { describe, expect, it, onTestFinished } from "vitest";
import { listAll } from "../../src/cluster/list.js";
import { PODS, type Resource } from "../../src/karpenter/resources.js";
import type { PodView } from "../../src/karpenter/views.js";
import { receivedUrls, sandboxCluster } from "./helpers.js";

const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
  spec: {
    nodeName: "ip-10-0-9-9.ec2.internal",
    containers: [{ name: "c", image: "nginx" }],
  },
});

describe("listAll when the continue token expires", () => {
  it("lists again without pages and returns every object exactly once, as of the new list", async () => {
    const { sandbox, cluster } = await sandboxCluster("default");
    const store = sandbox.kube.store;
    const before = store.list("pods").map((p) => p.metadata.name);
    expect(before.length).toBeGreaterThan(6); // more than two pages of 3
    // Between the first and the second page: a pod is created and etcd compacts (store.compact), so the first page's
    // revision is gone and the second page's continue token is answered 410 Expired by the sandbox's list handler.
    sandbox.kube.faults.beforeNext(
      { verbs: ["list"], resources: ["pods"] },
      () =>
        sandbox.kube.faults.beforeNext(
          { verbs: ["list"], resources: ["pods"] },
          () => {
            store.create("pods", pod("created-between-pages"));
            store.objects.compact();
          },
        ),
    );
    const urls = receivedUrls(sandbox);
    const listed = await listAll(cluster, PODS, { pageSize: 3 });

    const names = listed.items.map((p) => p.name);
    expect(names.length).toBe(new Set(names).size);
    expect(names.sort()).toEqual([...before, "created-between-pages"].sort());
    expect(listed.resourceVersion).toBe(String(store.objects.resourceVersion));
    // First page, the continued page that expired, then one list without limit or continue.
    const queries = urls
      .filter((u) => u.pathname === "/api/v1/pods")
      .map((u) => [
        u.searchParams.get("limit"),
        u.searchParams.has("continue"),
      ]);
    expect(queries).toEqual([
      ["3", false],
      ["3", true],
      [null, false],
    ]);
  });
});

describe("listAll bodies", () => {
  it("decodes UTF-8 characters that arrive split between two chunks", async () => {
    const { sandbox, cluster } = await sandboxCluster("default");
    // 3-byte characters in runs longer than a TLS record (16 KiB): some character is split between two chunks.
    const value = (i: number) => `${i}:${"日本語のé".repeat(2_000)}`;
    for (let i = 0; i < 20; i++) {
      const p = pod(`multibyte-${i}`);
      sandbox.kube.store.create("pods", {
        ...p,
        metadata: {
          ...p.metadata,
          annotations: { "karpenter.sh/do-not-disrupt": value(i) },
        },
      });
    }
    // The list is larger than 128 KiB: kube-apiserver (and the sandbox) gzip it for a client that asks, as this one does.
    const raw = await new Promise<IncomingHttpHeaders>((resolve, reject) =>
      get(
        `${sandbox.kube.url}/api/v1/pods`,
        {
          ca: sandbox.kube.caData,
          headers: {
            Authorization: `Bearer ${sandbox.kube.token}`,
            "Accept-Encoding": "gzip",
          },
        },
        (res) => {
          res.resume();
          resolve(res.headers);
        },
      ).on("error", reject),
    );
    expect(raw["content-encoding"]).toBe("gzip");
    const listed = await listAll(cluster, PODS);
    const ours = listed.items.filter((p) => p.name.startsWith("multibyte-"));
    expect(ours).toHaveLength(20);
    for (const p of ours)
      expect(p.doNotDisrupt).toBe(
        value(Number(p.name.slice("multibyte-".length))),
      );
  });
});

describe("listAll's pages", () => {
  it("sends the next page's request before it converts the page it has", async () => {
    const { sandbox, cluster } = await sandboxCluster("default");
    const total = sandbox.kube.store.list("pods").length;
    expect(total).toBeGreaterThan(9); // more than three pages of 3
    // Requests the client has made (http.client.request.start: the request is created, its headers on their way),
    // counted when each pod is converted.
    let sent = 0;
    const onStart = (message: unknown) => {
      const { request } = message as { request: ClientRequest };
      if (request.path.startsWith("/api/v1/pods")) sent += 1;
    };
    subscribe("http.client.request.start", onStart);
    onTestFinished(() => void unsubscribe("http.client.request.start", onStart));
    const sentAtConversion: number[] = [];
    const counting: Resource<PodView> = { ...PODS, view: (o) => (sentAtConversion.push(sent), PODS.view(o)) };

    const listed = await listAll(cluster, counting, { pageSize: 3 });

    expect(listed.items).toHaveLength(total);
    const pages = Math.ceil(total / 3);
    // Page k (from 0) is converted once page k + 1 has been asked for and sent; the last page has no next one.
    const expected = sentAtConversion.map((_, i) => Math.min(Math.floor(i / 3) + 2, pages));
    expect(sentAtConversion).toEqual(expected);
  });
});
