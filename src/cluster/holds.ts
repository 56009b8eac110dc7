// Writes the holds of a staged rollout, pause and resume (stages/ decides what they are). Idempotent: writing the
// same hold twice changes nothing, and every write carries the resourceVersion it was computed from, so a change
// somebody else made meanwhile (a GitOps sync, kubectl edit, Karpenter's own status writes on a Node) is read again
// and folded in, never overwritten (409 → read → decide → write). A release gives the budgets back to the managers
// that owned them before the hold (apis/budget-owners.ts), so karp-drift owns nothing it only borrowed.
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
import {
  budgetOwners,
  HOLD_FIELD_MANAGER,
  keptOwners,
  releasedManagedFields,
  type BudgetOwner,
} from '../apis/budget-owners.js';
import { DO_NOT_DISRUPT } from '../karpenter/labels.js';
import { encodePauseRecord, PAUSE_ANNOTATION, type PauseRecord } from '../apis/pause-record.js';
import { NODE_HOLD_ANNOTATION } from '../karpenter/views.js';
import type { Cluster } from './client.js';
import { nodePoolView } from '../karpenter/convert.js';
import { clusterFailure, isApiFailure } from './failures.js';
import { ApiError, getJson, sendJson } from './request.js';
import { retrying, retryOn, type RetryPolicy } from './retry.js';
import type { KarpenterApi, ManagedFieldsEntry, NodePoolView } from '../karpenter/views.js';

const CONFLICT_RETRIES = 5;
/**
 * A hold write the API server answers with 429 or a 5xx, or whose connection is cut while it is out, is tried again
 * for a while: one lost write must not end a command that writes holds. Under a staged run's cluster lock a refused
 * or timed-out connection is tried again too, for as long as the lock holds (retry.ts `retryOn`, LOCKED_RETRY); a
 * one-shot command (pause, resume) does not wait for an API server that refuses connections: it says so at once.
 */
const HOLD_WRITE_RETRY: RetryPolicy = { baseMs: 100, capMs: 2_000, budgetMs: 15_000, connectErrors: false };

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
): Promise<{ view: NodePoolView; record?: HoldRecord; managedFields: ManagedFieldsEntry[] }> {
  const raw = await getJson<RawObject>(cluster, nodePoolPath(api, name), {}, signal);
  const view = nodePoolView(raw);
  const record = decodeHoldRecord(view.annotations?.[HOLD_ANNOTATION]);
  if (record !== undefined && 'error' in record) {
    throw new RuntimeFailure(`nodepool/${name}: ${record.error}`, {
      hint: `look at the NodePool's budgets, set them as they should be, then remove the annotation: kubectl annotate nodepool ${name} ${HOLD_ANNOTATION}-`,
    });
  }
  return { view, managedFields: raw.metadata?.managedFields ?? [], ...(record !== undefined ? { record } : {}) };
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
    /**
     * The upgrade windows' budgets (stages/window-plan.ts) and the flags that asked for them: a staged run writes
     * its own (none: `{budgets: [], flags: []}`); undefined (a pause) keeps what the record had, so a paused rollout
     * still opens only in its windows.
     */
    windows?: { budgets: Budget[]; flags: string[] };
    /** The run pauses because its windows are closed (HoldRecord `pausedBy`); never carried over from the record. */
    pausedBy?: 'window';
  },
  signal?: AbortSignal,
): Promise<BudgetHoldResult> {
  return withConflictRetries(cluster, name, signal, async () => {
    const { view, record, managedFields } = await readHeldNodePool(cluster, api, name, signal);
    const user = userBudgets(view.budgets, record);
    const windows = run.windows ?? { budgets: record?.windows ?? [], flags: record?.windowFlags ?? [] };
    const write = heldBudgets(user, allowance, run.armAt, windows.budgets);
    if ('error' in write) throw new RuntimeFailure(`nodepool/${name}: ${write.error}`);
    // Who the release gives the budgets back to: whoever owns them before this write takes them.
    const owners = record === undefined ? budgetOwners(managedFields) : keptOwners(managedFields, record.owners);
    // The sizes a record counted waves by belong to its target: a run for another one (a rollback taking over the
    // holds of the upgrade it rolls back) counts its own, or a re-run would take the other's stage for its own.
    const sizes = run.target === undefined || record?.target === run.target ? record : undefined;
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
        : sizes?.stageSize !== undefined
          ? { stageSize: sizes.stageSize }
          : {}),
      ...(run.poolSize !== undefined
        ? { poolSize: run.poolSize }
        : sizes?.poolSize !== undefined
          ? { poolSize: sizes.poolSize }
          : {}),
      // A staged run says whether it soaks (null: not now); pause keeps what the record had.
      ...(typeof run.soakUntil === 'string'
        ? { soakUntil: run.soakUntil }
        : run.soakUntil === undefined && record?.soakUntil !== undefined
        ? { soakUntil: record.soakUntil }
        : {}),
      ...(owners !== undefined ? { owners } : {}),
      ...(windows.budgets.length > 0 ? { windows: windows.budgets, windowFlags: windows.flags } : {}),
      ...(run.pausedBy !== undefined && windows.budgets.length > 0 ? { pausedBy: run.pausedBy } : {}),
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

/**
 * Puts the NodePool's own budgets back exactly and drops the record, then gives the budgets back to their owners;
 * nothing to do when karp-drift holds none.
 */
export async function releaseBudgetHold(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  signal?: AbortSignal,
): Promise<BudgetHoldResult> {
  const { result, handBack } = await withConflictRetries(cluster, name, signal, async () => {
    const { view, record, managedFields } = await readHeldNodePool(cluster, api, name, signal);
    if (record === undefined) return { result: { nodePool: name, budgets: view.budgets ?? null, changed: false } };
    const user = userBudgets(view.budgets, record);
    // Read before this write takes the budgets from whoever edited them while the pool was held.
    const owners = keptOwners(managedFields, record.owners) ?? [];
    // null removes a key in a merge patch: the annotation, and the budgets field when it was absent before.
    const written = await conditionalPatch(
      cluster,
      nodePoolPath(api, name),
      view.resourceVersion,
      // Released: nothing is paused there any more.
      { [HOLD_ANNOTATION]: null, [PAUSE_ANNOTATION]: null },
      { disruption: { budgets: user } },
      signal,
    );
    return { result: { nodePool: name, budgets: user, changed: true, record }, handBack: { written, owners } };
  });
  if (handBack !== undefined) await giveBudgetsBack(cluster, api, name, handBack.written, handBack.owners, signal);
  return result;
}

/**
 * The release's second write: the NodePool's managedFields as if karp-drift had never held it (apis/budget-owners.ts),
 * as a JSON patch that first tests the resourceVersion they were computed from. It changes no other field, so the API
 * server takes the entries as sent and gives karp-drift none for it; a write in between (Karpenter's status, a sync)
 * fails the test (422), and they are computed again from a fresh read. A run that ends between the two writes leaves
 * the budgets right and karp-drift owning them, as every release did before it gave them back.
 */
async function giveBudgetsBack(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  written: RawObject,
  owners: readonly BudgetOwner[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const path = nodePoolPath(api, name);
  let fresh: RawObject | undefined = written;
  await withConflictRetries(
    cluster,
    name,
    signal,
    async () => {
      let object = fresh;
      fresh = undefined;
      if (object === undefined) {
        try {
          object = await getJson<RawObject>(cluster, path, {}, signal);
        } catch (err) {
          if (err instanceof ApiError && err.code === 404) return; // deleted meanwhile: nobody to give them to
          throw err;
        }
      }
      const entries = releasedManagedFields(object.metadata?.managedFields ?? [], owners);
      if (entries === undefined) return;
      await sendJson(
        cluster,
        path,
        {
          method: 'PATCH',
          contentType: 'application/json-patch+json',
          body: [
            { op: 'test', path: '/metadata/resourceVersion', value: object.metadata?.resourceVersion },
            // `[{}]` says "none" (internal/fieldmanager.go isResetManagedFields); an empty list would keep them all.
            { op: 'replace', path: '/metadata/managedFields', value: entries.length > 0 ? entries : [{}] },
          ],
        },
        { fieldManager: HOLD_FIELD_MANAGER },
        signal,
      );
    },
    (err) => err.code === 409 || err.code === 422,
  );
}

/**
 * Records why the rollout on this NodePool is paused (apis/pause-record.ts), or removes the record (null). Only the
 * annotation: a metadata write, which bumps no generation and so leaves Karpenter's `NodeRegistrationHealthy` alone.
 */
export async function setPauseRecord(
  cluster: Cluster,
  api: KarpenterApi,
  name: string,
  record: PauseRecord | null,
  signal?: AbortSignal,
): Promise<void> {
  await withConflictRetries(cluster, name, signal, async () => {
    try {
      await conditionalPatch(
        cluster,
        nodePoolPath(api, name),
        undefined,
        { [PAUSE_ANNOTATION]: record == null ? null : encodePauseRecord(record) },
        undefined,
        signal,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return; // deleted meanwhile: nothing is paused there
      throw err;
    }
  });
}

interface RawNode {
  metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
}

/** Puts `karpenter.sh/do-not-disrupt: "true"` and the run's annotation on a Node, unless the user's own is there. */
export async function holdNode(cluster: Cluster, name: string, runId: string, signal?: AbortSignal): Promise<boolean> {
  return withConflictRetries(cluster, `node/${name}`, signal, async () => {
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
  return withConflictRetries(cluster, `node/${name}`, signal, async () => {
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
): Promise<RawObject> {
  return sendJson<RawObject>(
    cluster,
    path,
    {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { resourceVersion, annotations }, ...(spec !== undefined ? { spec } : {}) },
    },
    { fieldManager: HOLD_FIELD_MANAGER },
    signal,
  );
}

/**
 * A hold could not be written because the API call itself failed (no answer, retries run out). `cause` is that
 * failure: a staged run's end says from it that the API server is gone and what the cluster is left with
 * (commands/follow-end.ts), as it does for a lock lost the same way.
 */
export class HoldWriteFailed extends RuntimeFailure {}

/** `retry`: what a fresh read may fix (a 409 from a resourceVersion precondition, by default). */
async function withConflictRetries<T>(
  cluster: Cluster,
  what: string,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
  retry: (err: ApiError) => boolean = (err) => err.code === 409,
): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await retrying(attempt, retryOn(cluster, HOLD_WRITE_RETRY), signal);
    } catch (err) {
      if (err instanceof ApiError && retry(err) && i < CONFLICT_RETRIES) continue;
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
      // Refused, reset, retries run out: in the CLI's words, not as the transport's error (an "internal error").
      if (isApiFailure(err)) {
        const label = what.includes('/') ? what : `nodepool/${what}`;
        const resource = what.startsWith('node/') ? 'nodes' : 'nodepools.karpenter.sh';
        const said = clusterFailure(err, { doing: `writing the drift hold of ${label}`, verb: 'patch', resource }, cluster);
        throw new HoldWriteFailed(said.message, { cause: err, ...(said.hint !== undefined ? { hint: said.hint } : {}) });
      }
      throw err;
    }
  }
}
