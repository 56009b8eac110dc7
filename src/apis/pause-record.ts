// Why a rollout karp-drift holds is paused, recorded on each NodePool it paused (annotation `karp-drift.io/paused`),
// so that whoever comes next — a re-run of the upgrade, `status`, `wait`, a teammate — can tell a rollout a health
// gate halted (someone must look at the evidence before it goes on) from one a person paused, one an interrupt or a
// stall left, and one its upgrade window closed. The budget hold's own record (budget-hold.ts) is only on NodePools
// held with a budget; this one is on every paused NodePool, held with a budget or with its nodes. Written by the
// pause, removed by whatever takes the rollout on (a resumed run, `resume`, `rollback`). Pure.
import { inOrder } from '../text/order.js';

export const PAUSE_ANNOTATION = 'karp-drift.io/paused';

/** What paused it: `gate` needs a person's word before it goes on (`upgrade --resume-halted`). */
/** `sync` (`upgrade --apply-by git`): the terms the GitOps tool applied are not the planned ones (a revert, another change). */
export type PausedBy = 'gate' | 'pause' | 'interrupted' | 'stalled' | 'timeout' | 'window' | 'sync' | 'ended';

export interface PauseRecord {
  runId: string;
  /** When it paused (ISO 8601 UTC). */
  at: string;
  by: PausedBy;
  /** In a sentence: "a health gate stopped it: POD-FAILING pod …", "karp-drift pause by alice@laptop". */
  why: string;
  /** The run's command as typed (without `karp-drift`), and who ran it (user@host). */
  command?: string;
  who?: string;
  /** A gate halt: the first failing finding. */
  gate?: { code: string; subject?: string };
}

export function encodePauseRecord(r: PauseRecord): string {
  return JSON.stringify(r);
}

const BY: readonly PausedBy[] = ['gate', 'pause', 'interrupted', 'stalled', 'timeout', 'window', 'sync', 'ended'];

/** The record, or undefined when absent or not one (a hand-edited annotation says nothing; the holds still hold). */
export function decodePauseRecord(text: string | undefined): PauseRecord | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v == null) return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r.runId !== 'string' || typeof r.at !== 'string' || typeof r.why !== 'string') return undefined;
  const by = BY.find((b) => b === r.by);
  if (by === undefined) return undefined;
  const gate = r.gate as Record<string, unknown> | undefined;
  return {
    runId: r.runId,
    at: r.at,
    by,
    why: r.why,
    ...(typeof r.command === 'string' ? { command: r.command } : {}),
    ...(typeof r.who === 'string' ? { who: r.who } : {}),
    ...(typeof gate === 'object' && gate != null && typeof gate.code === 'string'
      ? { gate: { code: gate.code, ...(typeof gate.subject === 'string' ? { subject: gate.subject } : {}) } }
      : {}),
  };
}

/** The newest record among the NodePools' (a gate's first, whatever its age: it is the one that needs a look). */
export function pauseOf(pools: ReadonlyArray<{ annotations?: Record<string, string> }>): PauseRecord | undefined {
  const records = pools.flatMap((p) => {
    const r = decodePauseRecord(p.annotations?.[PAUSE_ANNOTATION]);
    return r !== undefined ? [r] : [];
  });
  return records.sort((a, b) => Number(b.by === 'gate') - Number(a.by === 'gate') || inOrder(b.at, a.at))[0];
}
