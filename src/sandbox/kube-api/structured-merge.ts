import { isRecord, type FieldSet } from './field-set.js';
import type { ListSemanticsLookup } from './list-semantics.js';
import { indexItems, itemPathElement } from './typed-fields.js';
import type { ListSemantics } from './types.js';

// The two value operations of server-side apply, after sigs.k8s.io/structured-merge-diff typed/merge.go
// (`TypedValue.Merge`) and merge/update.go (`Updater.prune`).

/** Merges an applied configuration into the live object: maps field by field, atomic lists replaced, sets and map lists item by item. */
export function mergeApplied(
  live: unknown,
  applied: unknown,
  lists: ListSemanticsLookup,
  fields: string[] = [],
): unknown {
  if (applied === undefined) return live;
  if (applied == null) return undefined;
  if (isRecord(applied)) {
    const out: Record<string, unknown> = isRecord(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(applied)) {
      const merged = mergeApplied(out[key], value, lists, [...fields, key]);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
    return out;
  }
  if (Array.isArray(applied)) {
    const semantics = lists(fields);
    if (semantics.type === 'atomic') return applied;
    return mergeItems(Array.isArray(live) ? live : [], applied, semantics, (l, r) =>
      semantics.type === 'map' ? mergeApplied(l, r, lists, fields) : r,
    );
  }
  return applied;
}

// typed/merge.go visitListItems: live items stay where they are, shared items follow the applied order, and
// items only in the applied list go where the applied list puts them.
function mergeItems(
  lhs: readonly unknown[],
  rhs: readonly unknown[],
  semantics: ListSemantics,
  mergeItem: (l: unknown, r: unknown) => unknown,
): unknown[] {
  const lKeys = lhs.map((item, i) => itemPathElement(item, i, semantics));
  const rKeys = rhs.map((item, i) => itemPathElement(item, i, semantics));
  const lByKey = indexItems(lhs, semantics);
  const rByKey = indexItems(rhs, semantics);
  const shared = rKeys.filter((k) => lByKey.has(k));
  let nextShared = 0;
  const merged = new Set<string>();
  const out: unknown[] = [];
  let li = 0;
  let ri = 0;
  while (li < lKeys.length || ri < rKeys.length) {
    const lKey = lKeys[li];
    const rKey = rKeys[ri];
    if (lKey !== undefined && rKey !== undefined) {
      if (lKey === rKey) {
        merged.add(lKey);
        out.push(mergeItem(lByKey.get(lKey), rByKey.get(rKey)));
        li++;
        ri++;
        nextShared++;
        continue;
      }
      if (rByKey.has(lKey) && shared[nextShared] !== undefined && shared[nextShared] !== lKey) {
        li++;
        continue;
      }
    }
    if (lKey !== undefined) {
      if (!rByKey.has(lKey)) {
        out.push(lhs[li]);
        li++;
        continue;
      }
      if (merged.has(lKey)) {
        li++;
        continue;
      }
    }
    if (rKey !== undefined) {
      merged.add(rKey);
      out.push(mergeItem(lByKey.get(rKey), rByKey.get(rKey)));
      ri++;
      if (shared[nextShared] === rKey) nextShared++;
    }
  }
  return out;
}

/**
 * Removes what the applier owned last time and no manager owns now (`owned` is the union of every manager's set,
 * the applier's new one included). A map left empty by the removal goes too, as a typed object would omit it.
 */
export function pruneUnowned(
  value: unknown,
  last: FieldSet,
  owned: FieldSet | undefined,
  lists: ListSemanticsLookup,
  fields: string[] = [],
): unknown {
  if (isRecord(value)) {
    const out = { ...value };
    for (const [pe, lastChild] of last.children) {
      if (!pe.startsWith('f:')) continue;
      const key = pe.slice(2);
      if (!(key in out)) continue;
      const ownedChild = owned?.children.get(pe);
      if (lastChild.member && !ownedChild) {
        delete out[key];
        continue;
      }
      if (lastChild.children.size === 0) continue;
      const before = out[key];
      const pruned = pruneUnowned(before, lastChild, ownedChild, lists, [...fields, key]);
      if (
        isRecord(pruned) &&
        Object.keys(pruned).length === 0 &&
        isRecord(before) &&
        Object.keys(before).length > 0 &&
        !ownedChild?.member
      ) {
        delete out[key];
      } else out[key] = pruned;
    }
    return out;
  }
  if (Array.isArray(value)) {
    const semantics = lists(fields);
    if (semantics.type === 'atomic') return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = itemPathElement(item, i, semantics);
      const lastChild = last.children.get(pe);
      const ownedChild = owned?.children.get(pe);
      if (!lastChild) out.push(item);
      else if (lastChild.member && !ownedChild) return;
      else out.push(lastChild.children.size > 0 ? pruneUnowned(item, lastChild, ownedChild, lists, fields) : item);
    });
    return out;
  }
  return value;
}
