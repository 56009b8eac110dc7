// `pin`'s flags → PinOptions. The AMI flags are plan's (`--to`, `--release`, `--min-age`, `--pin`, promotion), parsed
// by the same code so that they accept and refuse exactly what plan and upgrade do; the window flags are upgrade's.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import type { PinOptions } from '../commands/options.js';
import { parsePlanOptions } from './options.js';
import { parseWindowOptions } from './stage-options.js';

/** Plan's flags that mean nothing without --to. */
const NEEDS_TO = ['release', 'minAge', 'pin', 'allowDowngrade', 'allowDeprecated', 'replaceCustomAmis', 'amisFile', 'fromContext', 'fromKubeconfig', 'tfvars'];

export function parsePinOptions(paths: readonly string[], flags: Record<string, unknown>): PinOptions {
  if (paths.length === 0) {
    throw new UsageError('pin needs the files or directories to change', { hint: 'e.g. karp-drift pin --to 1.31 clusters/prod/karpenter' });
  }
  const windows = parseWindowOptions({ window: flags.window, exclude: flags.exclude });
  const hasTo = flags.to !== undefined;
  if (!hasTo) {
    const stray = NEEDS_TO.find((k) => flags[k] !== undefined && !(k === 'pin' && flags.pin === 'id') && !(k === 'release' && flags.release === 'latest'));
    if (windows === undefined) throw new UsageError('pin needs --to (the Kubernetes minor of the AMIs to pin) or --window (the upgrade windows to write)', { hint: 'e.g. karp-drift pin --to 1.31 clusters/prod/karpenter' });
    if (stray !== undefined) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} chooses the AMIs to pin, and there is no --to`, { hint: 'give --to with it, or drop it to write only the windows' });
  }
  const plan = hasTo ? parsePlanOptions({ ...flags, nodeclass: undefined, forceConflicts: undefined }) : undefined;
  const valuesPath = typeof flags.valuesPath === 'string' ? flags.valuesPath : undefined;
  if (valuesPath !== undefined && valuesPath.trim() === '') throw new UsageError('--values-path is empty (is the shell variable you passed unset?)', { hint: 'e.g. --values-path karpenter.nodeClass.amiSelectorTerms' });
  for (const [flag, value] of [['--pr-body', flags.prBody], ['--tfvars', flags.tfvars]] as const) {
    if (typeof value === 'string') outputFile(flag, value);
  }
  const variable = typeof flags.tfvarsVariable === 'string' ? flags.tfvarsVariable : 'karpenter_ami_pins';
  if (!/^[A-Za-z_][\w-]*$/.test(variable)) throw new UsageError(`--tfvars-variable ${JSON.stringify(variable)} is not a Terraform variable name`, { hint: 'letters, digits, underscores and dashes, starting with a letter or underscore' });
  return {
    paths: [...paths],
    ...(plan !== undefined ? { plan } : {}),
    ...(valuesPath !== undefined ? { valuesPath } : {}),
    check: flags.check === true,
    ...(windows !== undefined ? { windows } : {}),
    ...(typeof flags.prBody === 'string' ? { prBody: flags.prBody } : {}),
    ...(typeof flags.tfvars === 'string' ? { tfvars: { path: flags.tfvars, variable } } : {}),
    cluster: flags.cluster !== false,
  };
}

/** A file pin writes beside the ones it changes: its folder must exist (exit 2 before anything is read). */
function outputFile(flag: string, path: string): void {
  if (path.trim() === '') throw new UsageError(`${flag} is empty (is the shell variable you passed unset?)`);
  if (!existsSync(dirname(resolve(path)))) throw new UsageError(`${flag} ${path}: the folder ${dirname(resolve(path))} does not exist`, { hint: 'create it first, or give a file in an existing folder' });
  if (existsSync(path) && statSync(path).isDirectory()) throw new UsageError(`${flag} ${path} is a folder`, { hint: 'give a file path' });
}
