// The contracts of karp-drift's machine-readable output (docs/schemas/v1/*.schema.json) checked against everything the
// e2e tests see: every NDJSON event, every `plan -o json` and `status -o json` document, every --result-file. The run
// helpers (cli-sandbox.ts, staged.ts) call these, so a test that runs the CLI checks its output whatever else it
// asserts, and a change to the output fails here until the schema (the documented contract) says it too.
import { appendFileSync, readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const SCHEMAS = ['plan', 'status', 'events', 'result'] as const;
export type Contract = (typeof SCHEMAS)[number];

const validators = (() => {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // ajv-formats' CommonJS export under NodeNext: the function is the module's default.
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  for (const name of SCHEMAS) ajv.addSchema(schemaOf(name) as object);
  return Object.fromEntries(SCHEMAS.map((name) => [name, ajv.getSchema(schemaId(name))!])) as Record<Contract, ValidateFunction>;
})();

export function schemaOf(name: Contract): unknown {
  return JSON.parse(readFileSync(new URL(`../../docs/schemas/v1/${name}.schema.json`, import.meta.url), 'utf8'));
}

export function schemaId(name: Contract): string {
  return `https://github.com/karp-drift/karp-drift/blob/main/docs/schemas/v1/${name}.schema.json`;
}

/** What is wrong with `value` under the contract, one line per error; empty when it holds. */
export function contractErrors(name: Contract, value: unknown): string[] {
  const validate = validators[name];
  if (validate(value)) return [];
  // An event's schema is chosen by its `type` (if/then): the `then` it failed is said by the errors under it.
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The CLI's first word that is a command: what it printed depends on it. */
function commandOf(args: readonly string[]): string | undefined {
  return args.find((a) => /^[a-z]+$/.test(a) && COMMANDS.has(a));
}
const COMMANDS = new Set(['amis', 'render', 'plan', 'upgrade', 'rollback', 'status', 'wait', 'pause', 'resume', 'history', 'pin', 'demo', 'sandbox']);

function jsonOutput(args: readonly string[]): boolean {
  return args.some((a, i) => (a === '-o' || a === '--output') && args[i + 1] === 'json') || args.includes('-ojson') || args.includes('--output=json');
}

/** The lines of stdout that are JSON objects (NDJSON); a pretty-printed document is not one of them. */
export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout.split('\n').flatMap((l) => {
    try {
      const v = JSON.parse(l) as Record<string, unknown> | null;
      return v != null && typeof v === 'object' && !Array.isArray(v) ? [v] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The errors, after appending the value to $KARP_DRIFT_CONTRACTS_DUMP when set: every output a run of the e2e files saw,
 * to check a changed schema against without running them again.
 */
function recordedErrors(name: Contract, value: unknown): string[] {
  const dump = process.env.KARP_DRIFT_CONTRACTS_DUMP;
  if (dump) appendFileSync(dump, `${JSON.stringify({ contract: name, value })}\n`);
  return contractErrors(name, value);
}

/** One document a test read another way (the GitHub Action's result file, `status --watch`'s lines): checked. */
export function checkContract(name: Contract, what: string, value: unknown): void {
  const errors = recordedErrors(name, value);
  if (errors.length > 0) throw new Error(`${what}: outside its contract (docs/schemas/v1/${name}.schema.json):\n${errors.join('\n')}`);
}

function parsed(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * Every contract a run's output falls under, checked: its events, its `plan`/`status` document, its result file.
 * Throws with each failure, naming the command line.
 */
export function checkRunOutput(args: readonly string[], stdout: string): void {
  const failures: string[] = [];
  const check = (name: Contract, what: string, value: unknown) => {
    for (const e of recordedErrors(name, value)) failures.push(`${what}: ${e}`);
  };
  const command = commandOf(args);
  const json = jsonOutput(args);
  if (json && (command === 'plan' || command === 'status')) {
    // One pretty-printed document, or (status --watch) one per line.
    const whole = parsed(stdout);
    for (const doc of whole !== undefined ? [whole] : jsonLines(stdout)) check(command, `${command} -o json`, doc);
  } else if (json) {
    for (const event of jsonLines(stdout)) if (typeof event.type === 'string') check('events', `event ${String(event.type)}`, event);
  }
  const at = args.indexOf('--result-file');
  const file = at >= 0 ? args[at + 1] : undefined;
  if (file !== undefined) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = undefined; // not written (a refused flag, an unwritable path): the test says whether it should be
    }
    if (text !== undefined) check('result', 'the result file', JSON.parse(text));
  }
  if (failures.length > 0) throw new Error(`karp-drift ${args.join(' ')}: output outside its contract (docs/schemas/v1):\n${failures.join('\n')}`);
}
