// The pods' resource requests when a scenario gives none. A drift replacement is needed only where a node's pods fit
// nowhere else (Karpenter's scheduling simulation), so the requests say how full the cluster is: a real cluster under
// consolidation leaves no node with room for another node's pods, and neither do these defaults. DaemonSet pods ask
// 100m and 128Mi; each NodePool's other pods without requests share what its busiest node leaves after its DaemonSets
// and the pods that do state requests, equally.
import { INSTANCE_ALLOCATABLE } from '../karpenter/objects.js';
import { quantity } from '../karpenter/resources.js';
import type { KubeStore } from '../kube-api/registry-store.js';
import type { BuiltNode } from './nodes.js';
import type { Scenario, ScenarioWorkload } from './schema.js';
import { DAEMON_REQUESTS, podsPerNode } from './workloads.js';

export interface Requests {
  cpu: string;
  memory: string;
}

const MI = 2 ** 20;

/** Each workload's requests (index-aligned with `scenario.workloads`). */
export function workloadRequests(store: KubeStore, scenario: Scenario, poolNodes: Map<string, BuiltNode[]>): Requests[] {
  const stated = (w: ScenarioWorkload): Requests | undefined => w.requests ?? (w.daemonSet ? DAEMON_REQUESTS : undefined);
  const shares = new Map<string, Requests>();
  for (const [pool, nodes] of poolNodes) {
    // Per node: what stated requests take, and how many pods share the rest.
    const taken = new Map<string, { cpu: number; memory: number; sharers: number }>();
    for (const w of scenario.workloads.filter((x) => x.nodePool === pool)) {
      const r = stated(w);
      for (const [node, count] of podsPerNode(store, w, nodes)) {
        const t = taken.get(node) ?? { cpu: 0, memory: 0, sharers: 0 };
        if (r) {
          t.cpu += count * quantity(r.cpu) * 1000;
          t.memory += count * quantity(r.memory);
        } else t.sharers += count;
        taken.set(node, t);
      }
    }
    let cpu = Infinity;
    let memory = Infinity;
    for (const t of taken.values()) {
      if (t.sharers === 0) continue;
      cpu = Math.min(cpu, Math.floor((quantity(INSTANCE_ALLOCATABLE.cpu) * 1000 - t.cpu) / t.sharers));
      memory = Math.min(memory, Math.floor((quantity(INSTANCE_ALLOCATABLE.memory) - t.memory) / t.sharers / MI));
    }
    if (Number.isFinite(cpu)) shares.set(pool, { cpu: `${Math.max(cpu, 1)}m`, memory: `${Math.max(memory, 1)}Mi` });
  }
  return scenario.workloads.map((w) => stated(w) ?? shares.get(w.nodePool) ?? DAEMON_REQUESTS);
}
