/**
 * Reading a bundle's JSON and YAML files into plain values as Go's decoders read them: JSON via
 * go-json.ts (invalid UTF-8 becomes U+FFFD, the last repeated key wins), YAML with the `yaml`
 * package plus goyaml's legacy octal and binary integers. Own properties only, so a key such as
 * `__proto__` is data, never a prototype.
 */
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import { ToolgateError } from '../errors.ts';
import { refuse, type Where } from './entry-fault.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { goUtf8, JsonError, parseGoJson, type JNode } from './go-json.ts';
import { MAX_DEPTH as GO_JSON_MAX_DEPTH } from '../rego/go-json.ts';

export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export function toJS(n: JNode): unknown {
  switch (n.t) {
    case 'obj': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of n.entries) setOwn(o, k, toJS(v));
      return o;
    }
    case 'arr':
      return n.items.map(toJS);
    case 'str':
      return n.v;
    case 'num': {
      // Go keeps 1e400 as a json.Number; a double cannot, and Infinity is no JSON value at all.
      const v = Number(n.lit);
      if (!Number.isFinite(v)) throw new JsonError(`the number ${n.lit} is out of range (toolgate holds numbers as doubles)`);
      return v;
    }
    case 'lit':
      return n.v;
  }
}

/** toJS of a node read from entry `w`, a number out of range refused as the entry's fault. */
export function toJSIn(n: JNode, w: Where): unknown {
  try {
    return toJS(n);
  } catch (e) {
    if (e instanceof JsonError) refuse(w, e.message);
    throw e;
  }
}

export function readJsonFile(bytes: Uint8Array, w: Where): unknown {
  try {
    return toJS(parseGoJson(goUtf8(bytes), false));
  } catch (e) {
    if (e instanceof JsonError) refuse(w, `not valid JSON: ${e.message}`);
    throw e;
  }
}

/** A `\\u` escape of a surrogate: Go turns a lone one into U+FFFD where JSON.parse keeps it. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * A data.json file as readJsonFile reads it (Go's reading), through the native JSON.parse whenever
 * that gives the same value: valid UTF-8 (Go repairs invalid bytes), no escaped surrogate, and not
 * nested deep enough for Go's depth limit. Both take the last of repeated keys and read numbers
 * as doubles, and JSON.parse makes `__proto__` an own property as setOwn does. Anything else,
 * and any text JSON.parse refuses, goes through readJsonFile, which gives Go's value or refusal.
 * The native parser is what keeps a large data file from costing a decision most of its time.
 */
export function readDataJson(bytes: Uint8Array, w: Where): unknown {
  if (isUtf8(bytes)) {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (!SURROGATE_ESCAPE.test(text)) {
      let value: unknown;
      let parsed = true;
      try {
        value = JSON.parse(text);
      } catch {
        parsed = false;
      }
      if (parsed && nativeReadsAsGo(value, GO_JSON_MAX_DEPTH - 1)) return value;
    }
  }
  return readJsonFile(bytes, w);
}

/**
 * Whether JSON.parse's value is the one Go's reading gives: no path through `v` passes `limit`
 * arrays and objects, and no number overflowed to Infinity (which readJsonFile refuses by name).
 * Walked without recursion.
 */
function nativeReadsAsGo(v: unknown, limit: number): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d + 1 >= limit) return false;
    for (const c of Array.isArray(x) ? x : Object.values(x)) {
      if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
      else if (typeof c === 'number' && !Number.isFinite(c)) return false;
    }
  }
  return true;
}

/** Go's legacy octal and binary integers, which goyaml v3 still resolves (`012` is 10). */
function goYamlInt(source: string): number | undefined {
  const m = /^([-+]?)0([0-7]+)$/.exec(source) ?? /^([-+]?)0b([01_]+)$/.exec(source);
  if (!m) return undefined;
  const v = Number.parseInt(m[2]!.replace(/_/g, ''), source.includes('b') ? 2 : 8);
  return m[1] === '-' ? -v : v;
}

export function readYamlFile(bytes: Uint8Array, w: Where): unknown {
  let b = bytes;
  if (b.length > 2 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const text = goUtf8(b);
  try {
    return toJS(parseGoJson(text, false));
  } catch (e) {
    if (!(e instanceof JsonError)) throw e;
  }
  // `yaml` loads here, on a bundle's first YAML data file: importing it costs ~100 ms per run.
  const { parseAllDocuments, isScalar, visit } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: false, prettyErrors: false });
  const all = Array.isArray(docs) ? docs : [docs];
  for (const d of all) if (d.errors.length > 0) refuse(w, `not valid YAML: ${d.errors[0]!.message}`);
  const doc = all[0];
  if (doc === undefined || doc.contents === null) return null;
  visit(doc, {
    Scalar(_k, node) {
      if (isScalar(node) && node.type === 'PLAIN' && typeof node.source === 'string') {
        const v = goYamlInt(node.source);
        if (v !== undefined) node.value = v;
      }
    },
  });
  try {
    return jsonable(doc.toJS({ maxAliasCount: 10_000 }), w);
  } catch (e) {
    if (e instanceof ToolgateError) throw e;
    refuse(w, `not valid YAML: ${(e as Error).message}`);
  }
}

function jsonable(v: unknown, w: Where): unknown {
  if (Array.isArray(v)) return v.map((x) => jsonable(x, w));
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) setOwn(o, String(k), jsonable(x, w));
    return o;
  }
  if (isJsonObject(v)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(o, k, jsonable(x, w));
    return o;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) refuse(w, `YAML value ${v} has no JSON form`);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

// ---------------------------------------------------------------------------------------------

/** The first JSON value of a file (undefined when it holds only whitespace); trailing content is ignored, as Go's Decoder does. */
export function readJsonFirst(bytes: Uint8Array, w: Where): JNode | undefined {
  const text = goUtf8(bytes);
  if (/^[ \t\r\n]*$/.test(text)) return undefined;
  try {
    return parseGoJson(text, true);
  } catch (e) {
    if (e instanceof JsonError) refuse(w, `not valid JSON: ${e.message}`);
    throw e;
  }
}

