// Writes the holds of a staged rollout, pause and resume (stages/ decides what they are). Idempotent: writing the
// same hold twice changes nothing, and every write carries the resourceVersion it was computed from, so a change
// somebody else made meanwhile (a GitOps sync, kubectl edit, Karpenter's own status writes on a Node) is read again
// and folded in, never overwritten (409 → read → decide → write).
import { RuntimeFailure } from '../errors.js';
import type { Budget } from '../karpenter/budgets.js';
import {
  decodeHoldRecord,
  encodeHoldRecord,
  heldBudgets,
  HOLD_ANNOTATION,
  sameBudgets,
  userBudgets,
  type HoldRecord,
} from '../apis/budget-hold.js';
import { DO_NOT_DISRUPT } from '../karpenter/labels.js';
import { NODE_HOLD_ANNOTATION } from '../karpenter/views.js';
import type { Cluster } from './client.js';
import { nodePoolView } from '../karpenter/convert.js';
import { ApiError, getJson, sendJson } from './request.js';
import type { KarpenterApi, NodePoolView } from '../karpenter/views.js';

const CONFLICT_RETRIES = 5;

type RawObject = Parameters<typeof nodePoolView>[0];

const nodePoolPath = (api: KarpenterApi, name: string) =>
  `/apis/karpenter.sh/${api}/nodepools/${encodeURIComponent(name)}`;
const nodePath = (name: string) => `/api/v1/nodes/${encodeURIComponent(name)}`;

export interface BudgetHoldResult {
  nodePool: string;
  /** The list now on the NodePool. */
  budgets: Budget[] | null;
  /** Something was written (false: it already was so). */
  changed: boolean;
  record?: HoldRecord;
}

/** Reads a NodePool with karp-drift's hold record; a hand-edited record is an error, never guessed at. */
export async function readHeldNodePool(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  signal?: AbortSignal,
): Promise<{ view: NodePoolView; record?: HoldRecord }> {
  const view = nodePoolView(await getJson<RawObject>(cluster, nodePoolPath(api, name), {}, signal));
  const record = decodeHoldRecord(view.annotations?.[HOLD_ANNOTATION]);
  if (record !== undefined && 'error' in record) {
    throw new RuntimeFailure(`nodepool/${name}: ${record.error}`, {
      hint: `look at the NodePool's budgets, set them as they should be, then remove the annotation: kubectl annotate nodepool ${name} ${HOLD_ANNOTATION}-`,
    });
  }
  return { view, ...(record !== undefined ? { record } : {}) };
}

/** Holds `name` so that at most `allowance` more drift replacements start. */
export async function holdWithBudget(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  allowance: number,
  run: {
    runId: string;
    now: Date;
    target?: string;
    stageSize?: number;
    poolSize?: number;
    soakUntil?: string | null;
    /** A live staged run's dead man's switch (apis/budget-hold.ts `switchBudget`): when it fires unless moved. */
    armAt?: Date;
  },
  signal?: AbortSignal,
): Promise<BudgetHoldResult> {
  return withConflictRetries(name, async () => {
    const { view, record } = await readHeldNodePool(cluster, api, name, signal);
    const user = userBudgets(view.budgets, record);
    const write = heldBudgets(user, allowance, run.armAt);
    if ('error' in write) throw new RuntimeFailure(`nodepool/${name}: ${write.error}`);
    const next: HoldRecord = {
      runId: run.runId,
      since: record?.since ?? run.now.toISOString(),
      budgets: user,
      ...(run.target !== undefined
        ? { target: run.target }
        : record?.target !== undefined
          ? { target: record.target }
          : {}),
      ...(run.stageSize !== undefined
        ? { stageSize: run.stageSize }
        : record?.stageSize !== undefined
          ? { stageSize: record.stageSize }
          : {}),
      ...(run.poolSize !== undefined
        ? { poolSize: run.poolSize }
        : record?.poolSize !== undefined
          ? { poolSize: record.poolSize }
          : {}),
      // A staged run says whether it soaks (null: not now); pause keeps what the record had.
      ...(typeof run.soakUntil === 'string'
        ? { soakUntil: run.soakUntil }
        : run.soakUntil === undefined && record?.soakUntil !== undefined
        ? { soakUntil: record.soakUntil }
        : {}),
    };
    const annotation = encodeHoldRecord(next);
    // The same hold written by an earlier run (a second pause): nothing to change, and the record keeps its run.
    const unchanged =
      record !== undefined &&
      encodeHoldRecord({ ...next, runId: record.runId }) === view.annotations?.[HOLD_ANNOTATION];
    if (sameBudgets(view.budgets, write.budgets) && unchanged) {
      return {
        nodePool: name,
        budgets: write.budgets,
        changed: false,
        record: next,
      };
    }
    // A merge patch replaces a list whole, as the atomic `budgets` list must be written.
    await conditionalPatch(
      cluster,
      nodePoolPath(api, name),
      view.resourceVersion,
      { [HOLD_ANNOTATION]: annotation },
      { disruption: { budgets: write.budgets } },
      signal,
    );
    return {
      nodePool: name,
      budgets: write.budgets,
      changed: true,
      record: next,
    };
  });
}

/** Puts the NodePool's own budgets back exactly and drops the record; nothing to do when karp-drift holds none. */
export async function releaseBudgetHold(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  signal?: AbortSignal,
): Promise<BudgetHoldResult> {
  return withConflictRetries(name, async () => {
    const { view, record } = await readHeldNodePool(cluster, api, name, signal);
    if (record === undefined) return { nodePool: name, budgets: view.budgets ?? null, changed: false };
    const user = userBudgets(view.budgets, record);
    // null removes a key in a merge patch: the annotation, and the budgets field when it was absent before.
    await conditionalPatch(
      cluster,
      nodePoolPath(api, name),
      view.resourceVersion,
      { [HOLD_ANNOTATION]: null },
      { disruption: { budgets: user } },
      signal,
    );
    return { nodePool: name, budgets: user, changed: true, record };
  });
}

interface RawNode {
  metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
}

/** Puts `karpenter.sh/do-not-disrupt: "true"` and the run's annotation on a Node, unless the user's own is there. */
export async function holdNode(cluster: Cluster, name: string, runId: string, signal?: AbortSignal): Promise<boolean> {
  return withConflictRetries(`node/${name}`, async () => {
    const node = await getJson<RawNode>(cluster, nodePath(name), {}, signal);
    const a = node.metadata?.annotations ?? {};
    if (a[NODE_HOLD_ANNOTATION] !== undefined) return false;
    if (a[DO_NOT_DISRUPT] !== undefined) return false; // the user's: never taken over, never removed later
    await conditionalPatch(
      cluster,
      nodePath(name),
      node.metadata?.resourceVersion,
      { [DO_NOT_DISRUPT]: 'true', [NODE_HOLD_ANNOTATION]: runId },
      undefined,
      signal,
    );
    return true;
  });
}

/** Removes karp-drift's hold from a Node: only where karp-drift's annotation says it put it there. */
export async function releaseNode(cluster: Cluster, name: string, signal?: AbortSignal): Promise<boolean> {
  return withConflictRetries(`node/${name}`, async () => {
    let node: RawNode;
    try {
      node = await getJson<RawNode>(cluster, nodePath(name), {}, signal);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return false; // replaced meanwhile
      throw err;
    }
    const a = node.metadata?.annotations ?? {};
    if (a[NODE_HOLD_ANNOTATION] === undefined) return false;
    await conditionalPatch(
      cluster,
      nodePath(name),
      node.metadata?.resourceVersion,
      { [DO_NOT_DISRUPT]: null, [NODE_HOLD_ANNOTATION]: null },
      undefined,
      signal,
    );
    return true;
  });
}

/**
 * Every hold write: a JSON merge patch of annotations (null removes one) and, for NodePools, spec, with the
 * resourceVersion it was computed from as precondition (a change since answers 409: read again).
 */
async function conditionalPatch(
  cluster: Cluster,
  path: string,
  resourceVersion: string | undefined,
  annotations: Record<string, string | null>,
  spec: Record<string, unknown> | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  await sendJson(
    cluster,
    path,
    {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { resourceVersion, annotations }, ...(spec !== undefined ? { spec } : {}) },
    },
    { fieldManager: 'karp-drift' },
    signal,
  );
}

async function withConflictRetries<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof ApiError && err.code === 409 && i < CONFLICT_RETRIES) continue;
      if (err instanceof ApiError) {
        throw new RuntimeFailure(
          `writing the drift hold of ${what.includes('/') ? what : `nodepool/${what}`}: ${err.message}`,
          {
            ...(err.code === 403
              ? {
                  hint: 'the upgrade ClusterRole needs patch on nodepools and nodes (deploy/rbac.yaml)',
                }
              : {}),
            cause: err,
          },
        );
      }
      throw err;
    }
  }
}
