/**
 * A parsed module as plain JSON and back, so that a caller that keeps what it compiled (decide's
 * certificates) can skip parsing the module again: in a process that lives a few milliseconds,
 * parsing even a small module costs more than reading its tree.
 *
 * The tree is kept exactly: every field in its order, `undefined` fields, Rego values (bigints,
 * decimals, -0, sets and objects, through their public API; the written text of an array literal's
 * float-written numbers, written-numbers.ts), and objects the parser shares between
 * two places stay shared, since the compiler annotates terms in place. Anything else (a class this
 * codec does not know, a field named like one of its tags) makes `encodeModule` refuse, so a tree
 * it returns always decodes to the tree it was given.
 */
import type { Module } from './ast.ts';
import { Decimal } from './number-value.ts';
import { ObjectValue, SetValue, type Value } from './value.ts';
import { keepWrittenNumbers, writtenNumbersOf } from './written-numbers.ts';

/** Refused by encodeModule: the tree holds something this codec cannot keep exactly. */
export class AstCodecError extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isTag = (k: string): boolean => k.charCodeAt(0) === 36; /* '$' */

/** The module as JSON text's value (JSON.stringify it); decodeModule gives the same tree back. */
export function encodeModule(m: Module): Json {
  // objects reached twice are written once, with an id, and referred to after
  const seen = new Set<object>();
  const multi = new Set<object>();
  const count = (x: unknown): void => {
    if (x === null || typeof x !== 'object') return;
    if (seen.has(x)) {
      multi.add(x);
      return;
    }
    seen.add(x);
    if (x instanceof SetValue) for (const v of x.values()) count(v);
    else if (x instanceof ObjectValue) for (const [k, v] of x.entries()) (count(k), count(v));
    else if (Array.isArray(x)) for (const v of x) count(v);
    else if (Object.getPrototypeOf(x) === Object.prototype) for (const k of Object.keys(x)) count((x as Record<string, unknown>)[k]);
  };
  count(m);
  const ids = new Map<object, number>();
  const enc = (x: unknown): Json => {
    switch (typeof x) {
      case 'undefined':
        return { $u: 0 };
      case 'boolean':
      case 'string':
        return x;
      case 'number':
        return Object.is(x, -0) || !Number.isFinite(x) ? { $n: Object.is(x, -0) ? '-0' : String(x) } : x;
      case 'bigint':
        return { $b: x.toString() };
      case 'object':
        break;
      default:
        throw new AstCodecError(`cannot encode a ${typeof x}`);
    }
    if (x === null) return null;
    const id = ids.get(x);
    if (id !== undefined) return { $r: id };
    if (!multi.has(x)) return encObject(x);
    ids.set(x, ids.size);
    return { $i: ids.size - 1, $v: encObject(x) };
  };
  const encObject = (x: object): Json => {
    if (Array.isArray(x)) {
      const texts = writtenNumbersOf(x);
      return texts === undefined ? x.map(enc) : { $a: x.map(enc), $t: texts.map((t) => t ?? null) };
    }
    if (x instanceof SetValue) return { $s: x.values().map(enc) };
    if (x instanceof ObjectValue) return { $o: x.entries().map(([k, v]) => [enc(k), enc(v)]) };
    if (x instanceof Decimal) return { $d: [x.m.toString(), x.e] };
    if (Object.getPrototypeOf(x) !== Object.prototype) throw new AstCodecError(`cannot encode a ${x.constructor?.name ?? 'null-prototype object'}`);
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(x)) {
      if (isTag(k)) throw new AstCodecError(`a field named ${k}`);
      out[k] = enc((x as Record<string, unknown>)[k]);
    }
    return out;
  };
  return enc(m);
}

/**
 * The tree encodeModule encoded, from the value JSON.parse gave (taken over: its objects become
 * the tree's). Throws on anything encodeModule does not write.
 */
export function decodeModule(json: unknown): Module {
  const shared: unknown[] = [];
  const dec = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) x[i] = dec(x[i]);
      return x;
    }
    const o = x as Record<string, unknown>;
    const keys = Object.keys(o);
    const first = keys[0];
    if (first === undefined || !isTag(first)) {
      for (const k of keys) o[k] = dec(o[k]);
      return o;
    }
    switch (first) {
      case '$u':
        return undefined;
      case '$n':
        return o.$n === '-0' ? -0 : Number(o.$n);
      case '$b':
        return BigInt(o.$b as string);
      case '$d': {
        const [m, e] = o.$d as [string, number];
        return new Decimal(BigInt(m), e);
      }
      case '$a': {
        const items = (o.$a as unknown[]).map(dec);
        keepWrittenNumbers(items, (o.$t as (string | null)[]).map((t) => t ?? undefined));
        return items;
      }
      case '$s':
        return new SetValue((o.$s as unknown[]).map((v) => dec(v) as Value));
      case '$o':
        return new ObjectValue((o.$o as [unknown, unknown][]).map(([k, v]) => [dec(k) as Value, dec(v) as Value] as const));
      case '$r': {
        const id = o.$r as number;
        if (!(id < shared.length)) throw new AstCodecError(`a reference to object ${id} before it`);
        return shared[id];
      }
      case '$i': {
        const id = o.$i as number;
        if (id !== shared.length) throw new AstCodecError(`object ${id} out of order`);
        // registered before its fields are read: a reference inside it is to the object itself
        const v = o.$v;
        if (v === null || typeof v !== 'object') throw new AstCodecError(`object ${id} is not an object`);
        shared.push(v);
        const out = dec(v);
        if (out !== v) shared[id] = out;
        return out;
      }
      default:
        throw new AstCodecError(`an unknown tag ${first}`);
    }
  };
  const m = dec(json);
  if (m === null || typeof m !== 'object' || !Array.isArray((m as Module).rules) || !Array.isArray((m as Module).pkg)) throw new AstCodecError('not a module');
  return m as Module;
}
