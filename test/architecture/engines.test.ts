// Node 20, 22 and 24 are supported (package.json engines, docs/getting-started.md): every package the CLI installs with
// must say so too. `npm ci` on Node 20 warns (EBADENGINE) about a few dev-only tools that declare Node 22;
// CONTRIBUTING.md names them, and this test keeps that list true: a new one fails here, so it is chosen again or
// explained.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: Record<string, string> | string[] }>;
};
const readme = readFileSync(`${ROOT}CONTRIBUTING.md`, 'utf8');

/**
 * The oldest release of each supported major that package.json accepts: what a user may run. 20.19 and 22.13 are
 * the oldest its build and test tools (rolldown, typescript-eslint) accept.
 */
const supported = ['20.19.0', '22.13.0', '24.0.0'];

function refusing(dev: boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && (p.dev === true) === dev)
    .filter(([, p]) => {
      const node = !Array.isArray(p.engines) ? p.engines?.node : undefined;
      return node !== undefined && !supported.every((v) => semver.satisfies(v, node));
    })
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version}`);
}

describe('every Node the project supports', () => {
  it('is what package.json says', () => {
    expect(supported.every((v) => semver.satisfies(v, manifest.engines.node))).toBe(true);
    expect(['20.18.3', '21.7.0', '22.12.0'].some((v) => semver.satisfies(v, manifest.engines.node))).toBe(false);
  });

  it('is accepted by every runtime dependency', () => {
    expect(refusing(false)).toEqual([]);
  });

  it('is refused only by the dev-only packages CONTRIBUTING.md names', () => {
    const named = refusing(true).filter((p) => !readme.includes(`\`${p.replace(/@[^@]+$/, '')}\``));
    expect(refusing(true).length).toBeGreaterThan(0); // CONTRIBUTING.md's paragraph says there are some: keep it true
    expect(named).toEqual([]);
  });
});
