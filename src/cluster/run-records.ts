// The run records (apis/run-record.ts) on the API server: each slot read by name (what RBAC's resourceNames grants),
// a new record created in a free slot or written over the oldest with its resourceVersion (a run racing for the same
// slot answers 409 and takes another), and the record written again as the run goes. The summary is JSON in
// `data` (kubectl shows it); the timeline, which grows with the nodes, gzip in `binaryData` (docs/history.md measures
// it at 5,000 nodes). And who the run is: a SelfSubjectReview where the server serves one.
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  RUN_ID_LABEL,
  RUN_RECORD_LABELS,
  RUN_RECORD_NAMES,
  SUMMARY_KEY,
  TIMELINE_KEY,
  type RunRecord,
  type RunSummary,
  type RunTimeline,
} from '../apis/run-record.js';
import type { Cluster } from './client.js';
import { clusterFailure } from './failures.js';
import { ApiError, getJson, sendJson } from './request.js';
import { READ_RETRY, retrying } from './retry.js';

interface ConfigMap {
  metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** One slot as read: absent, or its ConfigMap's version and what of a record it holds. */
export interface RecordSlot {
  name: string;
  resourceVersion?: string;
  summary?: RunSummary;
  /** Read only when asked for (`history <run>`): the list needs the summaries alone. */
  timeline?: RunTimeline;
}

const path = (namespace: string, name = '') =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps${name ? `/${encodeURIComponent(name)}` : ''}`;

function parse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** A ConfigMap in a slot that is not a record (someone's own, a hand edit) reads as a slot with nothing in it. */
function slotOf(name: string, cm: ConfigMap, withTimeline: boolean): RecordSlot {
  const summary = parse<RunSummary>(cm.data?.[SUMMARY_KEY]);
  const valid = summary?.kind === 'RunRecord' && typeof summary.runId === 'string' && typeof summary.startedAt === 'string';
  const zipped = cm.binaryData?.[TIMELINE_KEY];
  let timeline: RunTimeline | undefined;
  if (withTimeline && valid && zipped !== undefined) {
    try {
      timeline = parse<RunTimeline>(gunzipSync(Buffer.from(zipped, 'base64')).toString('utf8'));
    } catch {
      timeline = undefined;
    }
  }
  return {
    name,
    ...(cm.metadata?.resourceVersion !== undefined ? { resourceVersion: cm.metadata.resourceVersion } : {}),
    ...(valid ? { summary } : {}),
    ...(timeline !== undefined ? { timeline } : {}),
  };
}

/** Reads at once: twenty side by side would put twenty listeners on one AbortSignal (Node warns past ten). */
const READS_AT_ONCE = 5;

/** Every slot, read by name, a few side by side; a slot with no ConfigMap is free. */
export async function readRecordSlots(
  cluster: Cluster,
  namespace: string,
  options: { timelines?: boolean; signal?: AbortSignal } = {},
): Promise<RecordSlot[]> {
  const slots: RecordSlot[] = [];
  for (let i = 0; i < RUN_RECORD_NAMES.length; i += READS_AT_ONCE)
    slots.push(...(await readSlots(cluster, namespace, RUN_RECORD_NAMES.slice(i, i + READS_AT_ONCE), options)));
  return slots;
}

/** One slot, read by name (a run checking whether the record in its slot is still its own). */
export async function readRecordSlot(cluster: Cluster, namespace: string, name: string, signal?: AbortSignal): Promise<RecordSlot> {
  return (await readSlots(cluster, namespace, [name], signal ? { signal } : {}))[0]!;
}

function readSlots(
  cluster: Cluster,
  namespace: string,
  names: readonly string[],
  options: { timelines?: boolean; signal?: AbortSignal },
): Promise<RecordSlot[]> {
  return Promise.all(
    names.map(async (name) => {
      try {
        const cm = await retrying(() => getJson<ConfigMap>(cluster, path(namespace, name), {}, options.signal), READ_RETRY, options.signal);
        return slotOf(name, cm, options.timelines === true);
      } catch (err) {
        const answer = err instanceof ApiError ? err : (err as { cause?: unknown }).cause;
        if (answer instanceof ApiError && answer.code === 404) return { name };
        throw clusterFailure(err, { doing: `reading the run record ${namespace}/${name}`, verb: 'get', resource: 'configmaps' }, cluster);
      }
    }),
  );
}

/** The record as a ConfigMap: the summary as JSON, the timeline gzip'd. */
export function recordConfigMap(namespace: string, slot: Pick<RecordSlot, 'name' | 'resourceVersion'>, record: RunRecord) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: slot.name,
      namespace,
      ...(slot.resourceVersion !== undefined ? { resourceVersion: slot.resourceVersion } : {}),
      labels: { ...RUN_RECORD_LABELS, [RUN_ID_LABEL]: record.summary.runId },
    },
    data: { [SUMMARY_KEY]: JSON.stringify(record.summary, null, 1) },
    binaryData: { [TIMELINE_KEY]: gzipSync(JSON.stringify(record.timeline)).toString('base64') },
  };
}

/**
 * Writes the record into its slot: a create where the slot was free, else an update guarded by the version read, so
 * two runs never both take one slot (the loser's 409 is the caller's to handle). Resolves with the new version.
 */
export async function writeRecord(
  cluster: Cluster,
  namespace: string,
  slot: Pick<RecordSlot, 'name' | 'resourceVersion'>,
  record: RunRecord,
  signal?: AbortSignal,
): Promise<string> {
  const body = recordConfigMap(namespace, slot, record);
  const written =
    slot.resourceVersion === undefined
      ? await sendJson<ConfigMap>(cluster, path(namespace), { method: 'POST', body }, {}, signal)
      : await sendJson<ConfigMap>(cluster, path(namespace, slot.name), { method: 'PUT', body }, {}, signal);
  return written.metadata?.resourceVersion ?? '';
}

/** An access.ts AccessNeed (that file imports this one). */
interface RecordNeed {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
  name?: string;
  why: string;
}

/**
 * The run's record beside the lock: its slots read and written by name, created where free. The first slot's name
 * stands for all of them (deploy/rbac.yaml grants them together): twenty names asked twice would be forty rows of the
 * preflight's refusal table for one rule. Asked by every writing command's preflight (access.ts `lockNeeds`).
 */
export function recordNeeds(lockNamespace: string): RecordNeed[] {
  const why = `the run's record in ${lockNamespace} (karp-drift history)`;
  const record = { group: '', resource: 'configmaps', namespace: lockNamespace, why };
  return [
    { ...record, verb: 'get', name: RUN_RECORD_NAMES[0]! },
    { ...record, verb: 'create' },
    { ...record, verb: 'update', name: RUN_RECORD_NAMES[0]! },
  ];
}

/**
 * Whether the identity may write records (a SelfSubjectAccessReview per need, as raw JSON: `wait` need not load the
 * generated client that access.ts uses). Asked by a run that follows without the lock (`wait`), which the read-only
 * role runs: it then goes without a record rather than meet a 403.
 */
export async function deniedRecordNeeds(cluster: Cluster, lockNamespace: string, signal?: AbortSignal): Promise<RecordNeed[]> {
  const answers = await Promise.all(
    recordNeeds(lockNamespace).map(async (need) => {
      const { verb, group, resource, namespace, name } = need;
      const review = await retrying(
        () =>
          sendJson<{ status?: { allowed?: boolean } }>(
            cluster,
            '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
            {
              method: 'POST',
              body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, group, resource, namespace, ...(name ? { name } : {}) } } },
            },
            {},
            signal,
          ),
        READ_RETRY,
        signal,
      );
      return { need, allowed: review.status?.allowed === true };
    }),
  );
  return answers.filter((a) => !a.allowed).map((a) => a.need);
}

interface SelfSubjectReview {
  status?: { userInfo?: { username?: string; groups?: string[] } };
}

/**
 * Who the API server says this is (authentication.k8s.io/v1 SelfSubjectReview, `kubectl auth whoami`; Kubernetes
 * 1.28 and later, every user allowed by system:basic-user), or undefined where it is not served or not allowed: the
 * caller falls back to the kubeconfig's user name.
 */
export async function whoAmI(cluster: Cluster, signal?: AbortSignal): Promise<{ name: string; groups: string[] } | undefined> {
  try {
    const review = await sendJson<SelfSubjectReview>(
      cluster,
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
      {},
      signal,
    );
    const name = review.status?.userInfo?.username;
    return name ? { name, groups: review.status?.userInfo?.groups ?? [] } : undefined;
  } catch (err) {
    if (err instanceof ApiError && [403, 404, 405].includes(err.code)) return undefined;
    throw err;
  }
}
