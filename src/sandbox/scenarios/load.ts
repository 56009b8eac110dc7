// Finds a scenario by built-in name or file path. The built-ins live in scenarios/ at the package root
// (package-root.ts), as kube-api/crds.ts finds vendor/. A scenario may start from a built-in one: `extends: <name>`
// applies the rest of the file to that scenario's document as a JSON merge patch (RFC 7386: mappings merge key by
// key, `null` removes a key, anything else, lists included, replaces), before the defaults and checks, so a variant
// says only what differs (the bad-ami-* built-ins each name another symptom of the same bad AMI).
import { readdirSync, readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { packagePath } from '../../package-root.js';
import { loadScenarioYaml, parseScenarioDocument, ScenarioError, type Scenario } from './schema.js';

/** The built-in scenario names, sorted: the file names of scenarios/*.yaml. */
export function builtInScenarioNames(): string[] {
  return readdirSync(packagePath('scenarios'))
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort();
}

/** A built-in name (`default`, `pdb-blocked`), or a path: anything with a `/` or ending in .yaml/.yml. */
export function loadScenario(nameOrPath: string): Scenario {
  const isPath = nameOrPath.includes('/') || /\.ya?ml$/.test(nameOrPath);
  if (isPath) return parseScenarioDocument(extended(readScenarioFile(nameOrPath), nameOrPath, []), nameOrPath);
  const source = `scenarios/${nameOrPath}.yaml`;
  return parseScenarioDocument(extended(builtInText(nameOrPath), source, [nameOrPath]), source);
}

function builtInText(name: string): string {
  const names = builtInScenarioNames();
  if (!names.includes(name)) {
    throw new UsageError(`no built-in scenario named "${name}" (built-in: ${names.join(', ')})`, {
      hint: 'or pass the path of a scenario file, e.g. ./my-scenario.yaml',
    });
  }
  return readFileSync(packagePath('scenarios', `${name}.yaml`), 'utf8');
}

/** The document with its `extends` chain applied; `seen` are the built-ins already on the chain. */
function extended(text: string, source: string, seen: string[]): unknown {
  const document = loadScenarioYaml(text, source);
  if (!isMapping(document) || !('extends' in document)) return document;
  const { extends: base, ...rest } = document;
  const names = builtInScenarioNames();
  const problem =
    typeof base !== 'string'
      ? 'must name a built-in scenario'
      : !names.includes(base)
        ? `no built-in scenario named "${base}" (built-in: ${names.join(', ')})`
        : seen.includes(base)
          ? `"${base}" extends itself (${[...seen, base].join(' → ')})`
          : undefined;
  if (problem !== undefined || typeof base !== 'string') throw new ScenarioError(source, [`extends: ${problem}`]);
  return mergePatch(extended(builtInText(base), `scenarios/${base}.yaml`, [...seen, base]), rest);
}

/** RFC 7386: a mapping patches a mapping key by key (null removes the key); anything else replaces the target. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMapping(patch)) return patch;
  const out: Record<string, unknown> = isMapping(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value == null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value != null && !Array.isArray(value);
}

function readScenarioFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new UsageError(`cannot read scenario ${path}: ${reason}`, { cause: err });
  }
}
