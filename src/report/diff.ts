// Draws an `upgrade --templates` diff (manifests/diff.ts) the way aws-cdk's cloudformation-diff `format.ts` draws a
// stack diff: `[+]` added, `[-]` removed, `[~]` changed, a tree per object, and what each change makes Karpenter do.
import type { Check } from '../plan/checks.js';
import { flowValue, listDelta, type FieldChange, type ManifestDiff, type ObjectDiff } from '../manifests/diff.js';
import { ANSI, checkLines, type Paint } from './plan.js';

const EFFECT: Record<FieldChange['class'], (c: FieldChange) => string> = {
  'ami-selection': () => 'AMI selection',
  hashed: (c) => `hashed: ${c.reason ?? 'drift'}`,
  requirements: (c) => c.reason ?? 'RequirementsDrifted',
  selectors: (c) => `may cause ${c.reason ?? 'drift'}`,
  behavioural: () => 'no drift',
};

const MARK = {
  add: ['[+]', 'green'],
  remove: ['[-]', 'red'],
  change: ['[~]', 'yellow'],
} as const;

// A list changed into another list reads best item by item (lists are sets to Karpenter's hash); anything else as
// the old value over the new one.
function valueLines(c: FieldChange, paint: Paint): string[] {
  if (c.op !== 'change') return [];
  const minus = (v: unknown) => paint('red', `[-] ${flowValue(v)}`);
  const plus = (v: unknown) => paint('green', `[+] ${flowValue(v)}`);
  if (Array.isArray(c.before) && Array.isArray(c.after)) {
    const { removed, added } = listDelta(c.before, c.after);
    return [...removed.map(minus), ...added.map(plus)];
  }
  return [minus(c.before), plus(c.after)];
}

function changeLines(c: FieldChange, last: boolean, paint: Paint): string[] {
  const [mark, color] = MARK[c.op];
  const value = c.op === 'add' ? `: ${flowValue(c.after)}` : c.op === 'remove' ? `: ${flowValue(c.before)}` : '';
  const head = ` ${last ? '└─' : '├─'} ${paint(color, mark)} ${c.path}${value} (${EFFECT[c.class](c)})`;
  const values = valueLines(c, paint);
  const indent = last ? '     ' : ' │   ';
  return [head, ...values.map((v, i) => `${indent}${i === values.length - 1 ? '└─' : '├─'} ${v}`)];
}

function objectLines(o: ObjectDiff, paint: Paint): string[] {
  if (o.created) return [`${paint('green', '[+]')} ${o.kind} ${o.name} (created)`];
  if (o.changes.length === 0) return [`    ${o.kind} ${o.name}: no changes`];
  return [`${paint('yellow', '[~]')} ${o.kind} ${o.name}`, ...o.changes.flatMap((c, i) => changeLines(c, i === o.changes.length - 1, paint))];
}

export function manifestDiffText(diff: ManifestDiff, checks: readonly Check[], options: { color: boolean }): string {
  const paint: Paint = options.color ? (style, text) => `\x1b[${ANSI[style]}m${text}\x1b[0m` : (_style, text) => text;
  const lines = ['Changes to the live objects:', ...objectLines(diff.nodeClass, paint), ...objectLines(diff.nodePool, paint), ...checkLines(checks, paint)];
  return `${lines.join('\n')}\n`;
}

/** The diff as data for `-o json`: each object's changes with their class and drift reason. */
export function manifestDiffJson(diff: ManifestDiff): Record<string, unknown> {
  const object = (o: ObjectDiff) => ({
    kind: o.kind,
    name: o.name,
    created: o.created,
    changes: o.changes.map((c) => ({
      path: c.path,
      op: c.op,
      ...(c.op !== 'add' ? { before: c.before } : {}),
      ...(c.op !== 'remove' ? { after: c.after } : {}),
      class: c.class,
      reason: c.reason ?? null,
    })),
  });
  return { nodeClass: object(diff.nodeClass), nodePool: object(diff.nodePool) };
}
