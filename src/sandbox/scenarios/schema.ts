// A sandbox scenario: the cluster the sandbox starts with (EC2NodeClasses, NodePools, nodes, workloads) and how the
// simulated world misbehaves. Scenarios are YAML (scenarios/*.yaml for the built-ins); this module parses them, checks
// their shape with the zod schema of shape.ts and their cross-references with checks.ts, and reports every problem
// with its field path. It re-exports shape.ts, so importers name one module.
import { load } from 'js-yaml';
import type * as z from 'zod';
import { UsageError } from '../../errors.js';
import { issueWords } from '../../text/issues.js';
import { scenarioProblems, type Problem } from './checks.js';
import { scenarioSchema, type Scenario } from './shape.js';

export * from './shape.js';

/** A scenario that failed to parse; `problems` are the lines of the message, each `<field path>: <what is wrong>`. */
export class ScenarioError extends UsageError {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`scenario ${source} is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

export function parseScenario(yamlText: string, source: string): Scenario {
  return parseScenarioDocument(loadScenarioYaml(yamlText, source), source);
}

/** The YAML document of a scenario, not yet checked; a syntax error is a ScenarioError naming the source. */
export function loadScenarioYaml(yamlText: string, source: string): unknown {
  try {
    return load(yamlText, { filename: source }) ?? {};
  } catch (err) {
    throw new ScenarioError(source, [`(document): not valid YAML: ${(err as Error).message}`]);
  }
}

/** A scenario document (YAML already read, any `extends` already applied: load.ts) checked and defaulted. */
export function parseScenarioDocument(document: unknown, source: string): Scenario {
  const parsed = scenarioSchema.safeParse(document ?? {}, { error: issueWords });
  // Cross-references are checked once every field has its shape: checks.ts reads the typed scenario.
  const problems = parsed.success ? scenarioProblems(parsed.data) : parsed.error.issues.flatMap(issueProblems);
  if (problems.length > 0)
    throw new ScenarioError(
      source,
      problems.map((p) => `${p.path}: ${p.message}`),
    );
  return parsed.data as Scenario;
}

function issueProblems(issue: z.core.$ZodIssue): Problem[] {
  const path = fieldPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: fieldPath([...issue.path, key]), message: 'unknown field' }));
  }
  return [{ path, message: issue.message === 'is required' ? 'required' : issue.message }];
}

/** `nodePools[1].nodeClass`, the way kubectl names fields. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || '(document)';
}
