// What a re-run of `upgrade` says before it takes on a rollout karp-drift holds (stages/resume-plan.ts): what paused
// it and why, which NodePools are held, and where it goes on. Pure.
import { holdStateText } from '../apis/hold-state.js';
import type { PauseRecord } from '../apis/pause-record.js';
import type { ResumePlan } from '../stages/resume-plan.js';
import { plural, utcTime } from '../text/words.js';

const hhmm = (iso: string) => `${utcTime(new Date(iso)).slice(0, 16).replace('T', ' ')} UTC`;

/** "halted by a health gate at 2026-12-07 10:42 UTC (run 2085…, alice@laptop: upgrade --to 1.30 --yes): …". */
export function pausedByText(p: PauseRecord): string {
  const what: Record<PauseRecord['by'], string> = {
    gate: 'halted by a health gate',
    pause: 'paused with karp-drift pause',
    interrupted: 'paused when its run was interrupted',
    stalled: 'paused when its run stalled',
    timeout: 'paused when its run timed out',
    window: 'paused by its upgrade window',
    sync: 'paused when the terms its GitOps tool applied were not the planned ones',
    ended: 'paused when its run ended early',
  };
  const run = [`run ${p.runId.slice(0, 8)}`, ...(p.who !== undefined ? [p.who] : [])].join(', ');
  const command = p.command !== undefined ? `: karp-drift ${p.command}` : '';
  // The Event's words start "a health gate stopped it: …", which the first words already say.
  const why = p.by === 'gate' ? p.why.replace(/^a health gate stopped it: /, '') : p.why;
  return `${what[p.by]} at ${hhmm(p.at)} (${run}${command}): ${why}`;
}

/** Where it goes on: "stage 1/1 (rollout) wave 1/2 (one node per target AMI): 2 of 17 old nodes replaced". */
function atText(at: NonNullable<ResumePlan['at']>): string {
  const wave = `wave ${at.wave + 1}/${at.waves}${at.amiWave ? ' (one node per target AMI)' : ''}`;
  const soak = at.soakUntil !== undefined ? `, soaking until ${hhmm(at.soakUntil)}` : '';
  return `stage ${at.stage + 1}/${at.stages} (${at.name}) ${wave}: ${at.started} of ${plural(at.size, 'old node')} replaced or under way${soak}`;
}

export function resumePlanLines(r: ResumePlan, now: Date): string[] {
  const pools = r.holds.map((h) => `nodepool/${h.nodePool}`).join(', ');
  const lines = [`This rollout is held: karp-drift holds Drifted disruption on ${pools}.`];
  if (r.pause !== undefined) lines.push(`  It was ${pausedByText(r.pause)}.`);
  const states = [...new Set(r.holds.map((h) => holdStateText(h.hold, now)))];
  for (const s of states) lines.push(`  Now: ${s}.`);
  if (r.at !== undefined) lines.push(`  Going on resumes it at ${atText(r.at)}.`);
  return lines;
}

export function resumePlanJson(r: ResumePlan): Record<string, unknown> {
  return {
    nodePools: r.holds.map((h) => ({ name: h.nodePool, state: h.hold.state })),
    halted: r.halted,
    ...(r.pause !== undefined
      ? {
          pausedBy: {
            by: r.pause.by,
            at: r.pause.at,
            runId: r.pause.runId,
            why: r.pause.why,
            ...(r.pause.who !== undefined ? { who: r.pause.who } : {}),
            ...(r.pause.command !== undefined ? { command: r.pause.command } : {}),
            ...(r.pause.gate !== undefined ? { gate: r.pause.gate } : {}),
          },
        }
      : {}),
    ...(r.at !== undefined
      ? {
          at: {
            stage: r.at.stage + 1,
            stages: r.at.stages,
            name: r.at.name,
            wave: r.at.wave + 1,
            waves: r.at.waves,
            amiWave: r.at.amiWave,
            started: r.at.started,
            size: r.at.size,
            ...(r.at.soakUntil !== undefined ? { soakUntil: r.at.soakUntil } : {}),
          },
        }
      : {}),
  };
}
