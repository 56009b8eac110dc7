// The rooms of src/ and the one direction their imports run (src/README.md draws the same list). Pure: the import
// graph and each file's package imports in, the broken rules out; rooms.test.ts reads src/.
import type { ImportGraph } from './import-graph.js';

/**
 * Top to bottom: a room imports only rooms below it. The entries and the leaves are the files at the root of src/;
 * the sandbox sits beside the product, above only what it shares with it (AMI data, Karpenter's rules, wording).
 */
export const ROOMS = [
  'entries',
  'cli',
  'commands',
  'report',
  'gitops',
  'stages',
  'gates',
  'rollout',
  'plan',
  'manifests',
  'sandbox',
  'ami',
  'cluster',
  'proxy',
  'windows',
  'apis',
  'text',
  'karpenter',
  'leaves',
] as const;
export type Room = (typeof ROOMS)[number];

const ENTRIES = new Set(['src/bin.ts', 'src/main.ts']);
const LEAVES = new Set(['src/errors.ts', 'src/logger.ts', 'src/package-root.ts']);

/** Rooms that decide and print: no I/O, no clock, no client, and nothing they import may have any. */
export const PURE_ROOMS: ReadonlySet<Room> = new Set(['report', 'gitops', 'stages', 'gates', 'rollout', 'plan', 'apis', 'windows', 'text', 'karpenter']);

/** Packages that do I/O: a file importing one is an edge. */
const IO_PACKAGE = /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|tls|tty|dgram|dns|worker_threads)$|^@aws-sdk\/|^@kubernetes\/client-node$/;

/** Only these files start the simulated cluster; the product reaches it as it reaches a real one (a kubeconfig). */
const SANDBOX_DOORS = new Set(['src/commands/sandbox.ts', 'src/commands/demo.ts']);
/** The production edges the sandbox must not borrow: it is the other side of the wire. */
const NOT_FOR_SANDBOX: ReadonlySet<Room> = new Set(['cluster', 'proxy']);

export function roomOf(file: string): Room | undefined {
  if (ENTRIES.has(file)) return 'entries';
  if (LEAVES.has(file)) return 'leaves';
  const m = /^src\/([^/]+)\//.exec(file);
  return m && (ROOMS as readonly string[]).includes(m[1]!) && m[1] !== 'entries' && m[1] !== 'leaves' ? (m[1] as Room) : undefined;
}

const rank = (room: Room): number => ROOMS.indexOf(room);

/** Every import that breaks a rule, as `from -> to: why`, sorted. */
export function roomViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const a = roomOf(from);
    if (a === undefined) {
      out.push(`${from}: in no room (a room is a directory of src/, or one of the entries and leaves)`);
      continue;
    }
    for (const to of targets) {
      const b = roomOf(to);
      if (b === undefined || a === b) continue;
      if (b === 'sandbox' && !SANDBOX_DOORS.has(from)) out.push(`${from} -> ${to}: only ${[...SANDBOX_DOORS].join(' and ')} start the sandbox`);
      else if (a === 'sandbox' && NOT_FOR_SANDBOX.has(b)) out.push(`${from} -> ${to}: the sandbox does not borrow the product's ${b}/ edge`);
      else if (rank(a) >= rank(b) && b !== 'sandbox') out.push(`${from} -> ${to}: ${a}/ is below ${b}/`);
    }
  }
  return out.sort();
}

/**
 * Files of the pure rooms that reach a package doing I/O, directly or through any file they import, with the path
 * to it: a pure room never imports an edge.
 */
export function impureReach(graph: ImportGraph, packages: ReadonlyMap<string, readonly string[]>): string[] {
  const io = new Map<string, string>();
  for (const [file, pkgs] of packages) {
    const p = pkgs.find((name) => IO_PACKAGE.test(name));
    if (p !== undefined) io.set(file, p);
  }
  const out: string[] = [];
  for (const file of [...graph.keys()].sort()) {
    const room = roomOf(file);
    if (room === undefined || !PURE_ROOMS.has(room)) continue;
    const path = pathToIo(graph, io, file);
    if (path) out.push(`${path.join(' -> ')} imports ${io.get(path.at(-1)!)}`);
  }
  return out;
}

function pathToIo(graph: ImportGraph, io: ReadonlyMap<string, string>, start: string): string[] | undefined {
  const seen = new Set([start]);
  const queue: string[][] = [[start]];
  while (queue.length > 0) {
    const path = queue.shift()!;
    const last = path.at(-1)!;
    if (io.has(last)) return path;
    for (const next of graph.get(last) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push([...path, next]);
    }
  }
  return undefined;
}
