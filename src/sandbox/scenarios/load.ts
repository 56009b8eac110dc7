// Finds a scenario by built-in name or file path. The built-ins live in scenarios/ at the package root
// (package-root.ts), as kube-api/crds.ts finds vendor/.
import { readdirSync, readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { packagePath } from '../../package-root.js';
import { parseScenario, type Scenario } from './schema.js';

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
  if (isPath) return parseScenario(readScenarioFile(nameOrPath), nameOrPath);
  const names = builtInScenarioNames();
  if (!names.includes(nameOrPath)) {
    throw new UsageError(`no built-in scenario named "${nameOrPath}" (built-in: ${names.join(', ')})`, {
      hint: 'or pass the path of a scenario file, e.g. ./my-scenario.yaml',
    });
  }
  const file = packagePath('scenarios', `${nameOrPath}.yaml`);
  return parseScenario(readFileSync(file, 'utf8'), `scenarios/${nameOrPath}.yaml`);
}

function readScenarioFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new UsageError(`cannot read scenario ${path}: ${reason}`, { cause: err });
  }
}
