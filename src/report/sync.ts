// The words of `upgrade --apply-by git` (and of `rollback` after one): what to merge and where, the wait for the sync,
// terms that arrive and are not the planned ones, and terms the GitOps tool moves mid-rollout. Each as a log line and
// as the NDJSON `sync` event (`state`: waiting, arrived, unplanned, reverted, changed), from the same data.
import type { AmiSpec } from '../plan/ami-spec.js';
import type { NodeClassPlan } from '../plan/pin.js';
import { ownerName, sourceLine } from '../plan/gitops-source.js';
import type { TermsChange } from '../rollout/synced-terms.js';
import { humanDuration } from '../text/words.js';
import { gitopsSourceJson } from './plan.js';
import { eventTime } from './progress.js';

export type SyncState = 'waiting' | 'arrived' | 'unplanned' | 'reverted' | 'changed';

/** Who applies a class's terms from Git: the Application or Kustomization when known, else the field manager. */
export function applierOf(c: Pick<NodeClassPlan, 'owners' | 'source'>): string {
  if (c.source !== undefined) return ownerName('source' in c.source ? c.source.source.owner : c.source.ref);
  const owner = c.owners.conflicts[0];
  if (owner === undefined) return 'whoever applies it';
  return owner.tool !== undefined ? `${owner.tool} (field manager ${owner.manager})` : `field manager ${owner.manager}`;
}

/** `[{"id":"ami-1"}] (amiFamily AL2023)`: a selection as one short line. */
export function specText(spec: AmiSpec): string {
  return `${JSON.stringify(spec.amiSelectorTerms)}${spec.amiFamily !== undefined ? ` (amiFamily ${spec.amiFamily})` : ''}`;
}

/** What to merge: each class's planned terms, who applies them from where, and the pin command that writes them. */
export function mergeLines(changes: readonly NodeClassPlan[], timeoutMs: number): string[] {
  const lines = [
    `Nothing is applied by karp-drift (--apply-by git): merge the change that gives ${changes.length === 1 ? 'this EC2NodeClass' : `these ${changes.length} EC2NodeClasses`} the planned terms, and its sync applies it.`,
  ];
  for (const c of changes) {
    lines.push(`  ec2nodeclass/${c.name}: ${specText(c.after)}`);
    lines.push(`    applied by ${c.source !== undefined ? sourceLine(c.source) : applierOf(c)}`);
    for (const p of c.pin ?? []) lines.push(`    write it with: ${p}`);
  }
  lines.push(`Waiting up to ${humanDuration(timeoutMs)} for the planned terms on ${changes.map((c) => `ec2nodeclass/${c.name}`).join(', ')} (the change merged and synced); karp-drift holds the rollout meanwhile.`);
  return lines;
}

/** A progress line while it waits: which classes still have which terms. */
export function waitingLine(pending: ReadonlyArray<{ name: string; live: AmiSpec }>, waitedMs: number, timeoutMs: number): string {
  const which = pending.map((p) => `ec2nodeclass/${p.name} still has ${specText(p.live)}`).join('; ');
  return `[${humanDuration(waitedMs)}] waiting for the sync: ${which} (${humanDuration(Math.max(0, timeoutMs - waitedMs))} left of --sync-timeout)`;
}

/** Terms arrived that are not the planned ones: both sets, and who applied them. */
export function unplannedMessage(name: string, planned: AmiSpec, arrived: AmiSpec, applier: string): string {
  return `ec2nodeclass/${name} got terms the plan did not choose from ${applier}: planned ${specText(planned)}, arrived ${specText(arrived)}`;
}

/** Mid-rollout: the terms the GitOps tool put on a class instead of the planned ones. */
export function termsMovedLine(m: TermsChange, applier: string): string {
  return m.state === 'previous'
    ? `${applier} put the terms from before the upgrade back on ec2nodeclass/${m.nodeClass} (a revert or a sync rollback): ${specText(m.live)}, planned ${specText(m.planned)}`
    : `${applier} applied other terms on ec2nodeclass/${m.nodeClass}: ${specText(m.live)}, planned ${specText(m.planned)}`;
}

/** The NDJSON `sync` event of a class whose terms moved mid-rollout (`reverted`, `changed`) or arrived unplanned. */
export function syncEventJson(
  state: Exclude<SyncState, 'waiting' | 'arrived'>,
  m: Pick<TermsChange, 'nodeClass' | 'live' | 'planned' | 'previous'>,
  applier: string,
  now: Date,
): Record<string, unknown> {
  return {
    type: 'sync',
    time: eventTime(now),
    state,
    nodeClass: m.nodeClass,
    appliedBy: applier,
    planned: m.planned,
    live: m.live,
    ...(m.previous !== undefined ? { previous: m.previous } : {}),
  };
}

/** The first `sync` event: what to merge, per class, and how long the run waits. */
export function waitingEventJson(changes: readonly NodeClassPlan[], timeoutMs: number, now: Date): Record<string, unknown> {
  return {
    type: 'sync',
    time: eventTime(now),
    state: 'waiting',
    timeoutSeconds: Math.round(timeoutMs / 1000),
    nodeClasses: changes.map((c) => ({
      name: c.name,
      planned: c.after,
      previous: c.before,
      appliedBy: applierOf(c),
      ...(c.source !== undefined ? { gitops: gitopsSourceJson(c.source, c.pin ?? []) } : {}),
    })),
  };
}

/** A class whose planned terms arrived: its generation then, and the owner's revision when it was read. */
export function arrivedEventJson(nodeClass: string, generation: number, revision: string | undefined, now: Date): Record<string, unknown> {
  return { type: 'sync', time: eventTime(now), state: 'arrived', nodeClass, generation, revision: revision ?? null };
}
