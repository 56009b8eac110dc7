// A named AWS profile that does not exist is a typo, not a credentials problem: say so before the SDK's credential
// chain turns it into "Could not load credentials from any providers". The files are the shared config and
// credentials files as the SDK finds them (AWS SDKs and Tools reference guide, "Location of the shared files").
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export interface SharedFile {
  kind: 'config' | 'credentials';
  path: string;
  /** null: the file does not exist. */
  text: string | null;
}

/** The config and credentials files the SDK reads, honouring AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE. */
export function sharedFilePaths(env: NodeJS.ProcessEnv, home: string): Array<Pick<SharedFile, 'kind' | 'path'>> {
  return [
    { kind: 'config', path: env.AWS_CONFIG_FILE || join(home, '.aws', 'config') },
    { kind: 'credentials', path: env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials') },
  ];
}

/**
 * Profile names a file defines: `[default]` and `[profile name]` in the config file (other sections, such as
 * `[sso-session x]` and `[services x]`, are not profiles), `[name]` in the credentials file.
 */
export function profilesIn(file: Pick<SharedFile, 'kind' | 'text'>): string[] {
  const names: string[] = [];
  for (const m of (file.text ?? '').matchAll(/^[ \t]*\[([^\]]*)\]/gm)) {
    const section = m[1]!.trim();
    if (file.kind === 'credentials') names.push(section);
    else if (section === 'default') names.push(section);
    else if (/^profile\s/.test(section)) names.push(section.slice('profile'.length).trim());
  }
  return names;
}

/** The error for a named profile that no file defines, or undefined when one does. */
export function missingProfile(profile: string, source: '--profile' | 'AWS_PROFILE', files: SharedFile[], home: string): UsageError | undefined {
  const known = [...new Set(files.flatMap(profilesIn))];
  if (known.includes(profile)) return undefined;
  const shown = (p: string) => (home !== '' && p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p);
  const where = files.map((f) => `${shown(f.path)}${f.text == null ? ' (no such file)' : ''}`).join(', ');
  const what = source === '--profile' ? `--profile ${profile}` : `AWS_PROFILE=${profile}`;
  return new UsageError(`${what}: profile "${profile}" does not exist in ${where}`, {
    hint:
      known.length > 0
        ? `use one of the profiles there (${known.join(', ')}; aws configure list-profiles lists them), or create it: aws configure --profile ${profile}`
        : `create it (aws configure --profile ${profile}, or aws configure sso), or point AWS_CONFIG_FILE at your config file`,
  });
}

/** Reads the shared files and throws when the profile in use (--profile, else AWS_PROFILE) is defined in neither. */
export function requireProfile(flag: string | undefined, env: NodeJS.ProcessEnv): void {
  const profile = flag ?? (env.AWS_PROFILE || undefined);
  if (profile === undefined) return; // the default profile is optional: environment credentials, IMDS, ...
  const home = homedir();
  const files = sharedFilePaths(env, home).map((f) => ({ ...f, text: readOrNull(f.path) }));
  const err = missingProfile(profile, flag !== undefined ? '--profile' : 'AWS_PROFILE', files, home);
  if (err) throw err;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // absent or unreadable: the SDK cannot use it either
  }
}
