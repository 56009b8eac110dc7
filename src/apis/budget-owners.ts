// Who owns a NodePool's `spec.disruption.budgets`, and the managedFields that give them back when karp-drift lets go
// of a budget hold. Pure.
//
// Every non-apply write moves the fields it changes to its writer (sigs.k8s.io/structured-merge-diff merge/update.go
// `Updater.Update`): the merge patch that holds a NodePool takes `f:budgets` from whoever set them (kubectl apply
// --server-side, Argo CD, Flux), and the release writes them again, so without more karp-drift would end up owning a
// field it only borrowed, and the owner's next server-side apply of a changed list would conflict with karp-drift.
// A client may set managedFields itself with any write that is not an apply (k8s.io/apimachinery
// pkg/util/managedfields/internal/fieldmanager.go `decodeLiveOrNew`: the request's entries replace the live ones; a
// write that changes nothing else gives its writer no entry). So the release, once the budgets are back, sends the
// entries as they would be had karp-drift never held the pool: its hold's claims gone, the budgets' owners' back.
import { HOLD_ANNOTATION, type BudgetOwner } from './budget-hold.js';
import type { ManagedFieldsEntry } from '../karpenter/views.js';

/** The field manager of karp-drift's writes (holds: merge patches, recorded as `Update`). */
export const HOLD_FIELD_MANAGER = 'karp-drift';

export type { BudgetOwner } from './budget-hold.js';

type Trie = Record<string, unknown>;

const BUDGETS = ['f:spec', 'f:disruption', 'f:budgets'];
const RECORD = ['f:metadata', 'f:annotations', `f:${HOLD_ANNOTATION}`];
const ANNOTATIONS = ['f:metadata', 'f:annotations'];

const trie = (v: unknown): Trie | undefined =>
  v != null && typeof v === 'object' && !Array.isArray(v) ? (v as Trie) : undefined;

/** karp-drift's hold writes: the `Update` entry of manager karp-drift on the main resource (at any apiVersion). */
export function isHoldWriter(e: ManagedFieldsEntry): boolean {
  return e.manager === HOLD_FIELD_MANAGER && e.operation === 'Update' && !e.subresource;
}

function has(fields: unknown, path: readonly string[]): boolean {
  let node = trie(fields);
  for (const pe of path) node = trie(node?.[pe]);
  return node !== undefined;
}

export function ownsBudgets(e: ManagedFieldsEntry): boolean {
  return !e.subresource && has(e.fieldsV1, BUDGETS);
}

/** The managers that own the budgets now, karp-drift's hold aside. */
export function budgetOwners(entries: readonly ManagedFieldsEntry[]): BudgetOwner[] {
  return entries
    .filter((e) => ownsBudgets(e) && !isHoldWriter(e))
    .map((e) => ({
      manager: e.manager ?? '',
      operation: e.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: e.apiVersion ?? '',
      ...(e.time ? { time: e.time } : {}),
    }));
}

/**
 * The owners a held NodePool's record keeps across re-holds and the release: whoever owns the budgets now besides
 * karp-drift took them over while the pool was held (an edit, a forced apply), as they would have from the first
 * owners had karp-drift never held it, so they replace the recorded ones; nobody: the recorded ones stay.
 */
export function keptOwners(
  entries: readonly ManagedFieldsEntry[],
  recorded: readonly BudgetOwner[] | undefined,
): BudgetOwner[] | undefined {
  const now = budgetOwners(entries);
  return now.length > 0 ? now : recorded?.slice();
}

/** managedFieldsEntry identity as the API server keys it (`BuildManagerIdentifier`): apiVersion counts for updates. */
function sameManager(e: ManagedFieldsEntry, o: BudgetOwner): boolean {
  return (
    e.manager === o.manager &&
    e.operation === o.operation &&
    !e.subresource &&
    (o.operation === 'Apply' || e.apiVersion === o.apiVersion)
  );
}

/**
 * The managedFields to send once the budgets are back, or undefined when they are already so. karp-drift's hold
 * entry loses the budgets, its record annotation and the annotations map it may have created for it (an entry left
 * with nothing is dropped); and where karp-drift's release was the last write of the budgets (its entry owns them),
 * `owners` own them again: in their entry as it is now, or in one written anew when losing the budgets left them
 * nothing. Where somebody else wrote the budgets since, they are theirs, and karp-drift gives nothing away.
 */
export function releasedManagedFields(
  entries: readonly ManagedFieldsEntry[],
  owners: readonly BudgetOwner[],
): ManagedFieldsEntry[] | undefined {
  const giveBack = entries.some((e) => isHoldWriter(e) && ownsBudgets(e));
  let changed = false;
  const out: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (!isHoldWriter(e)) {
      out.push(e);
      continue;
    }
    let fields = trie(e.fieldsV1) ?? {};
    fields = without(fields, BUDGETS, 'subtree');
    fields = without(fields, RECORD, 'subtree');
    fields = without(fields, ANNOTATIONS, 'member');
    if (fields === e.fieldsV1) {
      out.push(e);
      continue;
    }
    changed = true;
    if (Object.keys(fields).length > 0) out.push({ ...e, fieldsV1: fields });
  }
  if (!giveBack) return changed ? out : undefined;
  for (const owner of owners) {
    const i = out.findIndex((e) => sameManager(e, owner));
    const entry = out[i];
    if (entry !== undefined) {
      if (ownsBudgets(entry)) continue;
      out[i] = { ...entry, fieldsV1: withPath(trie(entry.fieldsV1) ?? {}, BUDGETS) };
    } else {
      out.push({
        manager: owner.manager,
        operation: owner.operation,
        apiVersion: owner.apiVersion,
        ...(owner.time !== undefined ? { time: owner.time } : {}),
        fieldsType: 'FieldsV1',
        fieldsV1: withPath({}, BUDGETS),
      });
    }
    changed = true;
  }
  return changed ? out : undefined;
}

// FieldsV1 (structured-merge-diff fieldpath/serialize.go): a node's keys are its children's path elements, and `.`
// marks a node that is itself in the set when it has children; a node with no keys is a member (a leaf). The root is
// never a member.

/** `fields` with `path` added as a member. */
export function withPath(fields: Trie, path: readonly string[]): Trie {
  const [pe, ...rest] = path;
  if (pe === undefined) return fields;
  const node = trie(fields[pe]);
  if (rest.length === 0) {
    const member = node === undefined || Object.keys(node).length === 0 || '.' in node ? (node ?? {}) : { '.': {}, ...node };
    return { ...fields, [pe]: member };
  }
  // A leaf that gains a child stays a member: it is marked with `.`.
  const base = node === undefined ? {} : Object.keys(node).length === 0 ? { '.': {} } : node;
  return { ...fields, [pe]: withPath(base, rest) };
}

/**
 * `fields` without the node at `path` and all below it ('subtree'), or without only its membership ('member'); nodes
 * left with nothing are removed, and a node left with only `.` becomes a leaf. The same object when nothing changes.
 */
export function without(fields: Trie, path: readonly string[], mode: 'subtree' | 'member'): Trie {
  const [pe, ...rest] = path;
  if (pe === undefined) return fields;
  const node = trie(fields[pe]);
  if (node === undefined) return fields;
  let next: Trie | undefined;
  if (rest.length === 0) {
    if (mode === 'subtree') {
      next = undefined;
    } else {
      const keys = Object.keys(node);
      if (keys.length > 0 && !('.' in node)) return fields; // has children and is not itself a member
      const { '.': _member, ...children } = node;
      next = Object.keys(children).length > 0 ? children : undefined;
    }
  } else {
    const inner = without(node, rest, mode);
    if (inner === node) return fields;
    const children = Object.keys(inner).filter((k) => k !== '.');
    next = children.length > 0 ? inner : '.' in inner ? {} : undefined;
  }
  const { [pe]: _old, ...others } = fields;
  return next === undefined ? others : { ...others, [pe]: next };
}
