/**
 * The JSON-document builtins json.filter and json.remove (by JSON paths) and json.patch (RFC 6902, as
 * OPA applies it: a failing patch makes the call undefined).
 */
import { type Value, ObjectValue, SetValue, isNumber, valueEquals } from '../value.ts';
import { toBigInt } from '../number-value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { BuiltinError, arg, arr, obj, oneOfError } from './args.ts';

// ---- JSON paths ---------------------------------------------------------------------------

function parsePath(name: string, p: Value): Value[] {
  if (typeof p === 'string') {
    if (p === '') return [];
    return p.replace(/^\/+/, '').split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  if (Array.isArray(p)) return [...p];
  throw new BuiltinError(
    'eval_type_error',
    `${name}: operand 2 must be one of {set, array} containing string paths or array of path segments but got ${p === null ? 'null' : typeof p === 'object' ? (p instanceof SetValue ? 'set' : p instanceof ObjectValue ? 'object' : 'array') : typeof p === 'bigint' ? 'number' : typeof p}`,
  );
}

function jsonPaths(name: string, v: Value): Value[][] {
  if (Array.isArray(v)) return v.map((p) => parsePath(name, p));
  if (v instanceof SetValue) return v.values().map((p) => parsePath(name, p));
  throw oneOfError(name, 2, ['set', 'array'], v);
}

/** Mutable tree of path segments; `null` marks a leaf (whole subtree selected). */
function pathsToObject(paths: Value[][]): ObjectValue {
  const root = new ObjectValue();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node = root;
    let done = false;
    for (let i = 0; i < path.length - 1 && !done; i++) {
      const k = path[i]!;
      const child = node.get(k);
      if (child === undefined) {
        const o = new ObjectValue();
        node.set(k, o);
        node = o;
      } else if (child === null) done = true;
      else node = child as ObjectValue;
    }
    if (!done) node.set(path[path.length - 1]!, null);
  }
  return root;
}

function filterValue(v: Value, filter: Value): Value {
  if (filter === null) return v;
  if (!(filter instanceof ObjectValue)) return v;
  if (Array.isArray(v)) {
    const out: Value[] = [];
    for (let i = 0; i < v.length; i++) {
      const sub = filter.get(String(i));
      if (sub !== undefined) out.push(filterValue(v[i]!, sub));
    }
    return out;
  }
  if (v instanceof SetValue) {
    const out = new SetValue();
    for (const x of v.unordered()) {
      const sub = filter.get(x);
      if (sub !== undefined) out.add(filterValue(x, sub));
    }
    return out;
  }
  if (v instanceof ObjectValue) {
    const out = new ObjectValue();
    for (const [k, x] of v.unordered()) {
      const sub = filter.get(k);
      if (sub !== undefined) out.set(k, filterValue(x, sub));
    }
    return out;
  }
  return v;
}

function removeValue(a: Value, b: Value | undefined): Value | undefined {
  if (b === undefined) return a;
  if (b === null) return undefined;
  if (!(b instanceof ObjectValue)) return a;
  if (a instanceof ObjectValue) {
    const out = new ObjectValue();
    for (const [k, v] of a.unordered()) {
      const d = removeValue(v, b.get(k));
      if (d !== undefined) out.set(k, d);
    }
    return out;
  }
  if (a instanceof SetValue) {
    const out = new SetValue();
    for (const v of a.unordered()) {
      const d = removeValue(v, b.get(v));
      if (d !== undefined) out.add(d);
    }
    return out;
  }
  if (Array.isArray(a)) {
    const out: Value[] = [];
    a.forEach((v, i) => {
      const d = removeValue(v, b.get(String(i)));
      if (d !== undefined) out.push(d);
    });
    return out;
  }
  return a;
}

// ---- JSON Patch ----------------------------------------------------------------------------

class PatchError extends Error {}

function patchIndex(seg: Value, len: number, allowEnd: boolean): number {
  if (allowEnd && seg === '-') return len;
  let i: bigint | undefined;
  if (typeof seg === 'string' && /^(0|[1-9][0-9]*)$/.test(seg)) i = BigInt(seg);
  else if (isNumber(seg)) i = toBigInt(seg);
  if (i === undefined || i < 0n || i > BigInt(allowEnd ? len : len - 1)) throw new PatchError('index out of range');
  return Number(i);
}

function patchGet(v: Value, path: readonly Value[]): Value {
  let cur = v;
  for (const seg of path) {
    if (cur instanceof ObjectValue) {
      const n = cur.get(seg);
      if (n === undefined) throw new PatchError('path not found');
      cur = n;
    } else if (Array.isArray(cur)) cur = cur[patchIndex(seg, cur.length, false)]!;
    else if (cur instanceof SetValue) {
      if (!cur.has(seg)) throw new PatchError('path not found');
      cur = seg;
    } else throw new PatchError('path not found');
  }
  return cur;
}

function patchUpdate(v: Value, path: readonly Value[], leaf: (parent: Value, key: Value) => Value): Value {
  if (path.length === 0) throw new PatchError('empty path');
  const [head, ...rest] = path as [Value, ...Value[]];
  if (rest.length === 0) return leaf(v, head);
  if (v instanceof ObjectValue) {
    const child = v.get(head);
    if (child === undefined) throw new PatchError('path not found');
    return new ObjectValue(v.unordered()).set(head, patchUpdate(child, rest, leaf));
  }
  if (Array.isArray(v)) {
    const i = patchIndex(head, v.length, false);
    const out = [...v];
    out[i] = patchUpdate(v[i]!, rest, leaf);
    return out;
  }
  if (v instanceof SetValue) {
    if (!v.has(head)) throw new PatchError('path not found');
    const out = new SetValue();
    for (const x of v.unordered()) if (!valueEquals(x, head)) out.add(x);
    return out.add(patchUpdate(head, rest, leaf));
  }
  throw new PatchError('path not found');
}

function patchAdd(doc: Value, path: readonly Value[], value: Value): Value {
  if (path.length === 0) return value;
  return patchUpdate(doc, path, (parent, key) => {
    if (parent instanceof ObjectValue) return new ObjectValue(parent.unordered()).set(key, value);
    if (Array.isArray(parent)) {
      const i = patchIndex(key, parent.length, true);
      return [...parent.slice(0, i), value, ...parent.slice(i)];
    }
    if (parent instanceof SetValue) {
      if (!valueEquals(key, value)) throw new PatchError('set key must equal value');
      return new SetValue(parent.unordered()).add(value);
    }
    throw new PatchError('cannot add to a scalar');
  });
}

function patchRemove(doc: Value, path: readonly Value[]): Value {
  if (path.length === 0) throw new PatchError('cannot remove the root');
  return patchUpdate(doc, path, (parent, key) => {
    if (parent instanceof ObjectValue) {
      if (!parent.has(key)) throw new PatchError('path not found');
      const out = new ObjectValue();
      for (const [k, x] of parent.unordered()) if (!valueEquals(k, key)) out.set(k, x);
      return out;
    }
    if (Array.isArray(parent)) {
      const i = patchIndex(key, parent.length, false);
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    if (parent instanceof SetValue) {
      if (!parent.has(key)) throw new PatchError('path not found');
      const out = new SetValue();
      for (const x of parent.unordered()) if (!valueEquals(x, key)) out.add(x);
      return out;
    }
    throw new PatchError('cannot remove from a scalar');
  });
}

function applyPatch(doc0: Value, ops: Value[]): Value | undefined {
  // `undefined` after removing the whole document; a later root `add` restores one.
  let doc: Value | undefined = doc0;
  const cur = (): Value => {
    if (doc === undefined) throw new PatchError('document was removed');
    return doc;
  };
  for (const op of ops) {
    if (!(op instanceof ObjectValue)) throw new PatchError('operation is not an object');
    const kind = op.get('op');
    if (typeof kind !== 'string') throw new PatchError("missing 'op'");
    const pathV = op.get('path');
    if (pathV === undefined) throw new PatchError("missing 'path'");
    const path = parsePath('json.patch', pathV);
    const need = (attr: string): Value => {
      const x = op.get(attr);
      if (x === undefined) throw new PatchError(`missing '${attr}' attribute`);
      return x;
    };
    switch (kind) {
      case 'add':
        doc = path.length === 0 ? need('value') : patchAdd(cur(), path, need('value'));
        break;
      case 'remove':
        if (path.length === 0) {
          cur();
          doc = undefined;
        } else doc = patchRemove(cur(), path);
        break;
      case 'replace': {
        const value = need('value');
        if (path.length === 0) {
          cur();
          doc = value;
          break;
        }
        doc = patchAdd(patchRemove(cur(), path), path, value);
        break;
      }
      case 'move': {
        const from = parsePath('json.patch', need('from'));
        const chunk = patchGet(cur(), from);
        doc = path.length === 0 ? chunk : patchAdd(patchRemove(cur(), from), path, chunk);
        break;
      }
      case 'copy': {
        const from = parsePath('json.patch', need('from'));
        doc = patchAdd(cur(), path, patchGet(cur(), from));
        break;
      }
      case 'test':
        if (!valueEquals(patchGet(cur(), path), need('value'))) throw new PatchError('test failed');
        break;
      default:
        throw new PatchError(`unrecognized op '${kind}'`);
    }
  }
  return doc;
}

export const JSON_DOCUMENT_BUILTINS: BuiltinDef[] = [
  {
    name: 'json.filter',
    arity: 2,
    fn: (a) => {
      const o = obj('json.filter', a, 0);
      const paths = jsonPaths('json.filter', arg(a, 1));
      return filterValue(o, pathsToObject(paths));
    },
  },
  {
    name: 'json.remove',
    arity: 2,
    fn: (a) => {
      const o = obj('json.remove', a, 0);
      const paths = jsonPaths('json.remove', arg(a, 1));
      return removeValue(o, pathsToObject(paths));
    },
  },
  {
    name: 'json.patch',
    arity: 2,
    fn: (a) => {
      const doc = arg(a, 0);
      const ops = arr('json.patch', a, 1);
      try {
        return applyPatch(doc, ops);
      } catch (e) {
        if (e instanceof PatchError || e instanceof BuiltinError) return undefined;
        throw e;
      }
    },
  },
];

registerBuiltins(JSON_DOCUMENT_BUILTINS);
