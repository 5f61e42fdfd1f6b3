// Field-level differences between two JSON documents (a template, an app policy), and the
// three-way merge that rebases an editor's change onto what someone else published meanwhile.

const token = (key) => String(key).replaceAll("~", "~0").replaceAll("/", "~1");
const untoken = (text) => text.replaceAll("~1", "/").replaceAll("~0", "~");

/**
 * Every leaf of `value` by JSON pointer, in document order: Map(pointer → value). With
 * `arraysAsLeaves`, an array is one value (the merge moves whole arrays: an index means nothing
 * once another edit inserted or removed an element).
 */
export function flatten(value, { arraysAsLeaves = false } = {}, prefix = "", into = new Map()) {
  const isArray = Array.isArray(value);
  if (value !== null && typeof value === "object" && !(isArray && arraysAsLeaves)) {
    const keys = isArray ? value.map((_, index) => index) : Object.keys(value);
    if (keys.length === 0) into.set(prefix, isArray ? [] : {});
    for (const key of keys) flatten(value[key], { arraysAsLeaves }, `${prefix}/${token(key)}`, into);
  } else {
    into.set(prefix, value);
  }
  return into;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** [{pointer, before, after, kind: "added" | "removed" | "changed"}], in document order. */
export function diff(before, after, options) {
  const a = flatten(before ?? {}, options);
  const b = flatten(after ?? {}, options);
  const changes = [];
  for (const [pointer, value] of a) {
    if (!b.has(pointer)) changes.push({ pointer, before: value, after: undefined, kind: "removed" });
    else if (!same(value, b.get(pointer))) changes.push({ pointer, before: value, after: b.get(pointer), kind: "changed" });
  }
  for (const [pointer, value] of b) {
    if (!a.has(pointer)) changes.push({ pointer, before: undefined, after: value, kind: "added" });
  }
  return changes;
}

/** Builds a document back from `flatten(…, {arraysAsLeaves: true})`'s map. */
export function unflatten(map) {
  let root;
  for (const [pointer, value] of map) {
    if (pointer === "") return structuredClone(value);
    const keys = pointer.slice(1).split("/").map(untoken);
    root ??= {};
    let node = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) node[key] = structuredClone(value);
      else node = node[key] ??= {};
    });
  }
  return root ?? {};
}

/**
 * Rebases `mine` (edited from `base`) onto `theirs` (what was published from `base` meanwhile).
 * Returns {merged, conflicts: [{pointer, base, mine, theirs}]}: a field both changed, to
 * different values, is a conflict, and `merged` keeps theirs there until the editor picks.
 */
export function merge(base, mine, theirs) {
  const options = { arraysAsLeaves: true };
  const b = flatten(base, options);
  const m = flatten(mine, options);
  const t = flatten(theirs, options);
  const result = new Map(t);
  const conflicts = [];
  for (const pointer of new Set([...b.keys(), ...m.keys()])) {
    const mineValue = m.get(pointer);
    const baseValue = b.get(pointer);
    if (same(mineValue, baseValue)) continue; // not my change
    const theirValue = t.get(pointer);
    if (same(theirValue, baseValue) || same(theirValue, mineValue)) {
      if (m.has(pointer)) result.set(pointer, mineValue);
      else result.delete(pointer);
    } else {
      conflicts.push({ pointer, base: baseValue, mine: mineValue, theirs: theirValue });
    }
  }
  return { merged: unflatten(result), conflicts };
}

/** Sets the value at `pointer` in `document` (a copy is not made), creating objects on the way. */
export function setAt(document, pointer, value) {
  const keys = pointer.slice(1).split("/").map(untoken);
  let node = document;
  keys.forEach((key, index) => {
    if (index === keys.length - 1) {
      if (value === undefined) delete node[key];
      else node[key] = value;
    } else {
      node = node[key] ??= {};
    }
  });
  return document;
}
