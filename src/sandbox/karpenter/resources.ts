// Resource requests and node capacity, as Karpenter's scheduler and kube-scheduler count them: CPU in millicores,
// memory in bytes, and one `pods` slot per pod (kubernetes-sigs/karpenter pkg/utils/resources: RequestsForPods adds
// `pods: 1` for each pod; `Fits` compares every resource the request names). A pod's request is the sum of its
// containers' requests, or an init container's where that is larger (resources.Ceiling, as kubectl describe shows it).
import type { KubeObject } from '../kube-api/types.js';

export interface Resources {
  /** Millicores. */
  cpu: number;
  /** Bytes. */
  memory: number;
  pods: number;
}

export const ZERO: Resources = { cpu: 0, memory: 0, pods: 0 };

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL: Record<string, number> = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** A Kubernetes quantity (`500m`, `2`, `128Mi`, `1G`) as a number of base units (cores, bytes); NaN if malformed. */
export function quantity(text: string | number | undefined): number {
  if (text === undefined) return 0;
  if (typeof text === 'number') return text;
  const m = /^([0-9]*\.?[0-9]+)([a-zA-Z]{0,2})$/.exec(text.trim());
  if (!m) return Number.NaN;
  const suffix = m[2] ?? '';
  const scale = suffix === '' ? 1 : (BINARY[suffix] ?? DECIMAL[suffix]);
  return scale === undefined ? Number.NaN : Number(m[1]) * scale;
}

type Requests = Record<string, string | number> | undefined;
type Container = { resources?: { requests?: Requests } };

function containerSum(containers: Container[] | undefined): Resources {
  let cpu = 0;
  let memory = 0;
  for (const c of containers ?? []) {
    cpu += Math.round(quantity(c.resources?.requests?.cpu) * 1000);
    memory += quantity(c.resources?.requests?.memory);
  }
  return { cpu, memory, pods: 0 };
}

/** What the pod asks of a node: its containers' requests (or its largest init container's), and one pod slot. */
export function podRequests(pod: KubeObject): Resources {
  const spec = (pod.spec ?? {}) as { containers?: Container[]; initContainers?: Container[] };
  const main = containerSum(spec.containers);
  let { cpu, memory } = main;
  for (const init of spec.initContainers ?? []) {
    const one = containerSum([init]);
    cpu = Math.max(cpu, one.cpu);
    memory = Math.max(memory, one.memory);
  }
  return { cpu, memory, pods: 1 };
}

/** A ResourceList (`{cpu: "3920m", memory: "14162Mi", pods: "58"}`) as resources. */
export function resourceList(list: Record<string, string | number> | undefined): Resources {
  return {
    cpu: Math.round(quantity(list?.cpu) * 1000),
    memory: quantity(list?.memory),
    pods: quantity(list?.pods),
  };
}

export const add = (a: Resources, b: Resources): Resources => ({
  cpu: a.cpu + b.cpu,
  memory: a.memory + b.memory,
  pods: a.pods + b.pods,
});

export const subtract = (a: Resources, b: Resources): Resources => ({
  cpu: a.cpu - b.cpu,
  memory: a.memory - b.memory,
  pods: a.pods - b.pods,
});

/** resources.Fits: every requested amount within what is available. */
export const fits = (request: Resources, available: Resources): boolean =>
  request.cpu <= available.cpu && request.memory <= available.memory && request.pods <= available.pods;

/** resources.String of a ResourceList, as Karpenter prints one in its messages: `{"cpu":"1273m","memory":"4Gi","pods":"3"}`. */
export function resourcesText(r: Resources): string {
  const list: Record<string, string> = {};
  if (r.cpu > 0) list.cpu = r.cpu % 1000 === 0 ? String(r.cpu / 1000) : `${r.cpu}m`;
  if (r.memory > 0) list.memory = memoryText(r.memory);
  list.pods = String(r.pods);
  return JSON.stringify(list);
}

function memoryText(bytes: number): string {
  for (const [suffix, scale] of [['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const)
    if (bytes % scale === 0) return `${bytes / scale}${suffix}`;
  return String(bytes);
}
