// Pure: what the job page shows of a run, from the result document the CLI wrote (--result-file): the step's outputs,
// the line that says how it ended, and annotations for the top findings only. GitHub shows at most 10 error and 10
// warning annotations per step; more would be cut at random, so these are chosen and counted here. The CLI's own
// output is never touched: it went to the log as it was printed.
import { resultOfExit } from '../../src/report/summary.js';

type Doc = Record<string, unknown>;

export interface Annotation {
  title: string;
  message: string;
}

export interface Outcome {
  outputs: { result: string; 'exit-code': string; 'nodes-replaced': string; json: string };
  /** One line: the command, its result and exit code, and how many nodes were replaced. */
  verdict: string;
  /** The step fails with this (an error annotation of its own); undefined when the CLI exited 0. */
  failure?: string;
  errors: Annotation[];
  warnings: Annotation[];
}

/** The CLI's exit code for a run the upgrade window paused (docs/reference/exit-codes.md). */
const PAUSED_BY_WINDOW = 7;

/** GitHub's per-step display limit for each kind of annotation. */
export const MAX_ANNOTATIONS = 10;

const text = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : JSON.stringify(v));
const where = (d: Doc): string =>
  d.nodePool !== undefined
    ? ` nodepool/${text(d.nodePool)}`
    : d.nodeClass !== undefined
      ? ` ec2nodeclass/${text(d.nodeClass)}`
      : '';

function finding(d: Doc): Annotation {
  const evidence = ((d.evidence as unknown[] | undefined) ?? []).slice(0, 3).map(text);
  return {
    title: `${text(d.code)}${where(d)}`,
    message: [text(d.message), ...evidence.map((e) => `  ${e}`), ...(d.next ? [`next: ${text(d.next)}`] : [])].join(
      '\n',
    ),
  };
}

/**
 * `doc` is the result document, or undefined when the CLI wrote none (it was killed, or refused its flags before the
 * command began); `path` is where it was to be written.
 */
export function outcome(command: string, exitCode: number, doc: Doc | undefined, path: string): Outcome {
  const result = typeof doc?.result === 'string' ? doc.result : resultOfExit(exitCode);
  const replaced = typeof doc?.nodesReplaced === 'number' ? doc.nodesReplaced : undefined;
  const error = doc?.error as { message?: string; hint?: string } | undefined;
  // A staged run that ended early is `paused`; why (stalled, timeout, interrupted, window) is the `done` event's cause.
  const cause = (doc?.done as Doc | undefined)?.cause;
  const why = result === 'paused' && typeof cause === 'string' ? `${cause}, ` : '';
  const verdict = `karp-drift ${command}: ${result} (${why}exit ${exitCode})${replaced !== undefined ? `, ${replaced} node${replaced === 1 ? '' : 's'} replaced` : ''}`;

  const errors: Annotation[] = [];
  const warnings: Annotation[] = [];
  const gate = doc?.gate as Doc | undefined;
  if (gate !== undefined) {
    const findings = ((gate.findings as Doc[] | undefined) ?? [])
      .slice(0, 3)
      .map((f) => `${text(f.code)}: ${text(f.message)}`);
    errors.push({
      title: `health gate ${text(gate.result)}: ${text(gate.gate)} at ${text(gate.point)}`,
      message: findings.join('\n') || text(gate.message),
    });
  }
  const blocked = (doc?.blocked as Doc[] | undefined) ?? [];
  // A stall's verdict fails the run; a blocker seen while the rollout went on is a warning, unless it ended the run.
  for (const b of blocked) (b.stage === 'stall' || exitCode !== 0 ? errors : warnings).push(finding(b));
  const checks = (((doc?.plan as Doc | undefined)?.checks as Doc[] | undefined) ?? []).filter(
    (c) => c.level !== 'info',
  );
  for (const c of checks) (c.level === 'error' ? errors : warnings).push(finding(c));

  // Exit 7, paused by the upgrade window, is success so far: the same upgrade goes on in the next window.
  const failure =
    exitCode === 0 || exitCode === PAUSED_BY_WINDOW
      ? undefined
      : [`${verdict}: ${error?.message ?? 'see the log above'}`, ...(error?.hint ? [`next: ${error.hint}`] : [])].join(
          '\n',
        );
  // setFailed is an error annotation too: it is counted.
  const room = MAX_ANNOTATIONS - (failure !== undefined ? 1 : 0);
  return {
    outputs: {
      result,
      'exit-code': String(exitCode),
      'nodes-replaced': replaced !== undefined ? String(replaced) : '',
      json: doc !== undefined ? path : '',
    },
    verdict,
    ...(failure !== undefined ? { failure } : {}),
    errors: capped(errors, room),
    warnings: capped(warnings, MAX_ANNOTATIONS),
  };
}

/** The first `room` annotations, the last of them saying how many more the step summary and the log hold. */
function capped(list: Annotation[], room: number): Annotation[] {
  const unique = list.filter((a, i) => list.findIndex((b) => b.title === a.title && b.message === a.message) === i);
  if (unique.length <= room) return unique;
  const shown = unique.slice(0, room - 1);
  const rest = unique.length - shown.length;
  return [...shown, { title: `${rest} more`, message: `${rest} more findings: see the step summary and the log` }];
}
