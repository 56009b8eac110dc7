// The golden tests' harness: a fixture tree read as the command reads it (commands/pin-sources.ts), built, and pinned
// by gitops/pin.ts with AMIs and EC2 images fixed here, so that each run is the same bytes.
import { posix } from 'node:path';
import type { ImageView } from '../../src/ami/verify.js';
import { readSources } from '../../src/commands/pin-sources.js';
import { buildUnits, type SourceTree } from '../../src/gitops/build.js';
import { unitInventory } from '../../src/gitops/file-inventory.js';
import { parseValuesPath, valuesUnit } from '../../src/gitops/helm-values.js';
import { pinChanges, type PinResult } from '../../src/gitops/pin.js';
import { parseYamlFile } from '../../src/gitops/yaml-file.js';
import type { PinMode } from '../../src/plan/plan-options.js';
import type { WindowRequest } from '../../src/stages/request.js';
import { al2023Name, targetAmis } from '../plan/factories.js';

export const FIXTURES = 'test/fixtures/gitops';
export const NOW = new Date('2026-03-02T12:00:00Z');

/** What EC2 describes: the old images the fixtures pin (v20240807) and the new ones the targets are. */
export const IMAGES: ImageView[] = [
  { id: 'ami-0aaaaaaaaaaaaaaa1', name: al2023Name('amd64/standard', '1.30', 'v20240807'), architecture: 'x86_64', ownerId: '602401143452' },
  { id: 'ami-0bbbbbbbbbbbbbbb2', name: al2023Name('arm64/standard', '1.30', 'v20240807'), architecture: 'arm64', ownerId: '602401143452' },
  ...targetAmis().map((a) => ({ id: a.id, name: a.name, architecture: a.architecture, ownerId: '602401143452' })),
];

export interface PinCase {
  dir: string;
  /** Paths under the case's `in/`. */
  paths: string[];
  pin?: PinMode;
  valuesPath?: string;
  windows?: WindowRequest;
  /** false: only the windows (no --to). */
  terms?: boolean;
}

export function runPin(c: PinCase, tree?: SourceTree, values?: string[]): { result: PinResult; tree: SourceTree; values: string[] } {
  const root = posix.join(FIXTURES, c.dir, 'in');
  const read = tree === undefined ? readSources(c.paths.map((p) => posix.join(root, p))) : { tree, values: values ?? [] };
  const keys = c.valuesPath !== undefined ? parseValuesPath(c.valuesPath) : [];
  const built = buildUnits(read.tree);
  const units = [...built.units, ...read.values.map((v) => valuesUnit(read.tree.files.get(v)!, keys, c.valuesPath!))];
  const result = pinChanges({
    files: built.files,
    units,
    inventories: units.map((u) => unitInventory(u, IMAGES)),
    amis: targetAmis(),
    options: { to: '1.31', pin: c.pin ?? 'id', release: 'latest', fieldManager: 'karp-drift', withoutCluster: true, source: { kind: 'ssm', region: 'us-west-2' } },
    ...(c.windows !== undefined ? { windows: c.windows } : {}),
    terms: c.terms !== false,
    now: NOW,
  });
  return { result, ...read };
}

/** The tree with the changed files as pin wrote them, for the second run. */
export function written(tree: SourceTree, result: PinResult): SourceTree {
  const files = new Map(tree.files);
  for (const f of result.files) {
    const parsed = parseYamlFile(f.path, f.after);
    if ('error' in parsed) throw new Error(parsed.error);
    files.set(f.path, parsed);
  }
  return { ...tree, files };
}

/** A changed file's path under the case's `in/`. */
export const relative = (c: PinCase, path: string) => posix.relative(posix.join(FIXTURES, c.dir, 'in'), path);
