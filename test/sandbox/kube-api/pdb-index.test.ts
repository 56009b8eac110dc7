// The PDB pod counts kept from the change feed agree with a scan of the namespace after every kind of pod change.
import { expect, it } from "vitest";
import { sandboxControllers } from "../../../src/sandbox/kube-api/garbage-collector.js";
import { pdbStatus } from "../../../src/sandbox/kube-api/pdb.js";
import { KubeStore } from "../../../src/sandbox/kube-api/registry-store.js";
import { ResourceRegistry } from "../../../src/sandbox/kube-api/resources.js";
import { ObjectStore } from "../../../src/sandbox/kube-api/store.js";
import type { KubeObject } from "../../../src/sandbox/kube-api/types.js";

const PDBS = "poddisruptionbudgets.policy";

it("keeps each PDB’s covered and healthy pods in step with the pods, through creates, updates, deletes and a selector change", () => {
  const store = new KubeStore(new ObjectStore(), new ResourceRegistry());
  store.controllers = sandboxControllers();
  store.create("namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "shop" },
  });
  const pod = (name: string, app: string, ready: boolean): KubeObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "shop", labels: { app } },
    spec: { containers: [{ name: "c", image: "nginx" }] },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
    },
  });
  for (let i = 0; i < 6; i++)
    store.create("pods", pod(`web-${i}`, "web", i % 2 === 0), {
      wholeObject: true,
    });
  store.create(PDBS, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "web", namespace: "shop" },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: "web" } } },
  });
  const scan = () => {
    const pdb = store.get(PDBS, "web", "shop")!;
    const { expectedPods, currentHealthy } = pdbStatus(
      pdb,
      store.list("pods", "shop"),
      "2026-11-25T10:00:00Z",
    );
    return { expectedPods, currentHealthy };
  };
  const indexed = () => store.pdbPods.count(store.get(PDBS, "web", "shop")!);
  expect(indexed()).toEqual({ expectedPods: 6, currentHealthy: 3 });

  store.create("pods", pod("web-6", "web", true), { wholeObject: true });
  store.create("pods", pod("api-0", "api", true), { wholeObject: true });
  const web1 = store.get("pods", "web-1", "shop")!;
  store.update(
    "pods",
    {
      ...web1,
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: "True" }],
      },
    },
    { wholeObject: true },
  );
  const web2 = store.get("pods", "web-2", "shop")!;
  store.update(
    "pods",
    { ...web2, metadata: { ...web2.metadata, labels: { app: "api" } } },
    { wholeObject: true },
  );
  store.delete("pods", "web-4", "shop");
  expect(indexed()).toEqual(scan());
  expect(indexed()).toEqual({ expectedPods: 5, currentHealthy: 3 });

  const pdb = store.get(PDBS, "web", "shop")!;
  store.update(PDBS, {
    ...pdb,
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: "api" } } },
  });
  expect(indexed()).toEqual(scan());
  expect(indexed()).toEqual({ expectedPods: 2, currentHealthy: 2 });
});
