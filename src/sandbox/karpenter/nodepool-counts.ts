// The NodePools' state nodes (their NodeClaims) and what their capacity adds up to, kept from the store's change feed
// as Karpenter's cluster state is kept from informers (nodepool-controller.ts writes them to status). No import of
// context.ts: it holds one of these.
import type { KubeStore } from '../kube-api/registry-store.js';
import type { KubeObject } from '../kube-api/types.js';

const NODECLAIMS = 'nodeclaims.karpenter.sh';
const NODEPOOLS = 'nodepools.karpenter.sh';
const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const COUNTED = ['cpu', 'memory', 'pods', 'ephemeral-storage'] as const;
const BINARY: Record<string, number> = { '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** A quantity as the sandbox's objects write them (`4`, `16384Mi`, `20Gi`, `3920m`) in base units; 0 if unknown. */
export function quantityValue(q: unknown): number {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti)?$/.exec(
    typeof q === 'string' ? q : typeof q === 'number' ? String(q) : '',
  );
  if (!m) return 0;
  const n = Number(m[1]);
  return m[2] === 'm' ? n / 1000 : n * (BINARY[m[2] ?? ''] ?? 1);
}

/** A sum written back as a Kubernetes quantity: the largest binary suffix that divides it (memory), else plain. */
export function quantityText(value: number, resource: string): string {
  if (resource === 'cpu' && !Number.isInteger(value)) return `${Math.round(value * 1000)}m`;
  if (resource === 'memory' || resource === 'ephemeral-storage') {
    for (const suffix of ['Ti', 'Gi', 'Mi', 'Ki'])
      if (value !== 0 && value % BINARY[suffix]! === 0) return `${value / BINARY[suffix]!}${suffix}`;
  }
  return String(value);
}

export type Totals = Record<(typeof COUNTED)[number] | 'nodes', number>;

export class NodePoolCounts {
  private readonly claims = new Map<string, { pool: string; capacity: Record<string, unknown> }>();
  readonly totals = new Map<string, Totals>();
  /** NodePools whose status is to be written: counts changed, a class's readiness changed, or never written. */
  readonly dirty = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(store: KubeStore) {
    for (const claim of store.objects.list(NODECLAIMS)) this.track(claim, true);
    for (const pool of store.objects.list(NODEPOOLS)) this.dirty.add(pool.metadata.name ?? '');
    this.unsubscribe = store.objects.subscribe((change) => {
      if (change.groupResource === NODECLAIMS) this.track(change.object, change.type !== 'DELETED');
      else if (
        change.groupResource === NODEPOOLS &&
        (change.type === 'ADDED' || change.object.metadata.generation !== change.previous?.metadata.generation)
      )
        this.dirty.add(change.object.metadata.name ?? '');
      else if (change.groupResource === EC2NODECLASSES) {
        // Readiness follows the class: every NodePool that names it (few; classes change rarely).
        for (const pool of store.objects.list(NODEPOOLS))
          if (nodeClassOf(pool) === change.object.metadata.name) this.dirty.add(pool.metadata.name ?? '');
      }
    });
  }

  private track(claim: KubeObject, present: boolean): void {
    const name = claim.metadata.name ?? '';
    const before = this.claims.get(name);
    if (before !== undefined) this.add(before.pool, before.capacity, -1);
    const pool = claim.metadata.labels?.[NODEPOOL_LABEL];
    if (present && pool !== undefined) {
      const capacity = (claim.status as { capacity?: Record<string, unknown> } | undefined)?.capacity ?? {};
      this.claims.set(name, { pool, capacity });
      this.add(pool, capacity, 1);
    } else this.claims.delete(name);
  }

  private add(pool: string, capacity: Record<string, unknown>, sign: 1 | -1): void {
    const t = this.totals.get(pool) ?? { cpu: 0, memory: 0, pods: 0, 'ephemeral-storage': 0, nodes: 0 };
    for (const r of COUNTED) t[r] += sign * quantityValue(capacity[r]);
    t.nodes += sign;
    this.totals.set(pool, t);
    this.dirty.add(pool);
  }

  close(): void {
    this.unsubscribe();
  }
}

/** The EC2NodeClass a NodePool's template names. */
export const nodeClassOf = (pool: KubeObject) =>
  (pool.spec as { template?: { spec?: { nodeClassRef?: { name?: string } } } } | undefined)?.template?.spec
    ?.nodeClassRef?.name;
