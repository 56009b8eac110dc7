// The project's Markdown as the docs tests read it: which files, their headings' anchors as GitHub makes them, their
// links, and their shell examples, each outside code where it must be.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;

/** The README, CONTRIBUTING.md and the manual: every page a reader moves between. */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

export const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** The lines outside fenced code blocks, with their line numbers (1-based). */
export function prose(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fenced = false;
  text.split('\n').forEach((l, i) => {
    if (l.startsWith('```')) fenced = !fenced;
    else if (!fenced) out.push({ line: i + 1, text: l });
  });
  return out;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file has, duplicates numbered as GitHub numbers them (`-1`, `-2`). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: l } of prose(text)) {
    const m = /^#{1,6} (.*)$/.exec(l);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown links outside code: `[label](target)`, images too. */
export function links(text: string): Array<{ line: number; target: string }> {
  return prose(text).flatMap(({ line, text: l }) =>
    [...l.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ line, target: m[1]! })),
  );
}

export const rel = (file: string) => relative(ROOT, join(ROOT, file));
