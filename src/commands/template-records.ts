// What `upgrade --templates` records on the objects it applies, so that `rollback` undoes exactly what the upgrade did:
// on an EC2NodeClass whose AMI selection it replaces, that selection (the record the pin path writes, cluster/apply.ts
// `bookkeeping`); on an object it creates, the run that created it (rollback deletes that, and nothing it did not
// create). A re-run that leaves the AMI selection as it is keeps the record of the run that changed it, as a re-run of
// the pin path applies nothing. karp-drift's own records are not template changes: the diff leaves them out.
import { ANNOTATIONS, bookkeeping } from '../cluster/apply.js';
import type { LiveManifests } from '../cluster/live-manifests.js';
import type { AmiSelectorTerm } from '../karpenter/views.js';
import { sameValue, type FieldChange, type ManifestDiff } from '../manifests/diff.js';
import type { RenderedManifests } from '../manifests/render.js';

export interface TemplateRecords {
  nodeClass: Record<string, string>;
  nodePool: Record<string, string>;
}

const RECORDS: readonly string[] = Object.values(ANNOTATIONS);

/** karp-drift's records among an object's annotations. */
function recordsOf(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations).filter(([k]) => RECORDS.includes(k)));
}

export function templateRecords(
  { nodeClass }: RenderedManifests,
  current: Pick<LiveManifests, 'nodeClass' | 'nodePool'>,
  run: { runId: string; target: string },
): TemplateRecords {
  const created = { [ANNOTATIONS.createdBy]: run.runId, [ANNOTATIONS.target]: run.target, [ANNOTATIONS.runId]: run.runId };
  const { nodeClass: live, nodePool: livePool } = current;
  if (live === undefined) return { nodeClass: created, nodePool: livePool ? {} : created };
  const family = typeof live.spec.amiFamily === 'string' ? live.spec.amiFamily : undefined;
  const unchanged = sameValue(live.spec.amiSelectorTerms, nodeClass.spec.amiSelectorTerms) && family === nodeClass.spec.amiFamily;
  if (unchanged) return { nodeClass: recordsOf(live.annotations), nodePool: livePool ? recordsOf(livePool.annotations) : created };
  const before = { amiSelectorTerms: (live.spec.amiSelectorTerms ?? []) as AmiSelectorTerm[], ...(family ? { amiFamily: family } : {}) };
  return { nodeClass: bookkeeping(before, run.target, run.runId), nodePool: livePool ? {} : created };
}

/** The rendered objects with the records in their annotations: what is applied. */
export function withRecords(m: RenderedManifests, records: TemplateRecords): RenderedManifests {
  const annotate = <T extends { metadata: Record<string, unknown> }>(o: T, r: Record<string, string>): T => {
    if (Object.keys(r).length === 0) return o;
    const annotations = { ...(o.metadata.annotations as Record<string, string> | undefined), ...r };
    return { ...o, metadata: { ...o.metadata, annotations } };
  };
  return { nodeClass: annotate(m.nodeClass, records.nodeClass), nodePool: annotate(m.nodePool, records.nodePool) };
}

const isRecord = (c: FieldChange) =>
  c.segments[0] === 'metadata' && c.segments[1] === 'annotations' && RECORDS.includes(c.segments[2] ?? '');

/** The diff without karp-drift's records (which the apply sets again, or drops as the rollback needs). */
export function withoutRecords(diff: ManifestDiff): ManifestDiff {
  return {
    nodeClass: { ...diff.nodeClass, changes: diff.nodeClass.changes.filter((c) => !isRecord(c)) },
    nodePool: { ...diff.nodePool, changes: diff.nodePool.changes.filter((c) => !isRecord(c)) },
  };
}

/** The objects the apply creates, as `nodepool/default`. */
export function createdObjects(diff: ManifestDiff): string[] {
  return [
    ...(diff.nodeClass.created ? [`ec2nodeclass/${diff.nodeClass.name}`] : []),
    ...(diff.nodePool.created ? [`nodepool/${diff.nodePool.name}`] : []),
  ];
}
