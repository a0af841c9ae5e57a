/**
 * Encoding builtins: json.*, yaml.* (the `yaml` package, YAML 1.1 scalars on input as Go's
 * sigs.k8s.io/yaml resolves them), base64, base64url, hex and urlquery.
 */
import { createRequire } from 'node:module';
import { type Value, ObjectValue, SetValue } from '../value.ts';
import { fromJSON, toJSON } from '../value-json.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { BuiltinError, arg, builtinError, elementError, obj, oneOfError, str } from './args.ts';
import { JsonSyntaxError, marshalIndent, marshalJson, parseJsonValue } from './lib/json.ts';
import { asciiFromRawBase64url, decodeGoBase64, GoBase64Error } from './lib/gobase64.ts';
import { goDecode as goUtf8Decode } from './lib/gourl-bytes.ts';

// `yaml` loads on the first yaml.* call, not with the engine: importing it costs ~100 ms per run.
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const B64URL = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$/;
const B64URL_RAW = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$/;

// ignoreBOM keeps a leading byte order mark, as Go does
/**
 * The evaluation's builtin cache key of the last text json.is_valid accepted, with its value: a
 * policy checks a text with json.is_valid before json.unmarshal reads it, which need not parse again.
 */
const LAST_VALID_JSON = 'json.is_valid:last';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decoded bytes as Go's JSON shows them: each byte of an invalid UTF-8 sequence becomes one U+FFFD. */
function bytesToString(b: Buffer): string {
  try {
    return strictUtf8.decode(b);
  } catch {
    return goUtf8Decode(b.toString('latin1'));
  }
}

/** Text the fast path refused, decoded as Go's decoder does it (CR and LF skipped), or its error at the first bad byte. */
function goDecode(name: string, s: string, url: boolean): string {
  try {
    return bytesToString(Buffer.from(decodeGoBase64(Buffer.from(s, 'utf8'), url)));
  } catch (e) {
    if (e instanceof GoBase64Error) throw builtinError(name, e.message);
    throw e;
  }
}

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Go's url.QueryUnescape. */
function queryUnescape(name: string, s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      const h = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) {
        throw builtinError(name, `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      }
      bytes.push(parseInt(h, 16));
      i += 3;
    } else if (c === '+') {
      bytes.push(0x20);
      i++;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      i += ch.length;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function yamlToValue(name: string, text: string): Value {
  let doc: unknown;
  try {
    // as OPA: every document of a stream must be well-formed; the value is the first one's
    const opts = { version: '1.1', intAsBigInt: true, maxAliasCount: 100, uniqueKeys: false } as const;
    const docs = yaml().parseAllDocuments(text, opts);
    const all = Array.isArray(docs) ? docs : [];
    for (const d of all) if (d.errors.length > 0) throw d.errors[0];
    doc = all.length === 0 ? null : (all[0] as (typeof all)[number]).toJS(opts);
  } catch (e) {
    throw builtinError(name, goYamlWording((e as Error).message.split('\n')[0] ?? 'invalid YAML'));
  }
  return fromJSON(normalizeYaml(doc));
}

/** go-yaml's words for an unclosed flow collection, the faults the two readers place alike; other texts stay the yaml package's. */
function goYamlWording(message: string): string {
  const m = /^Flow (sequence|map) must end with a [\]}] at line (\d+), column \d+:?$/.exec(message);
  if (m === null) return message;
  return `yaml: line ${m[2]}: did not find expected ',' or '${m[1] === 'map' ? '}' : ']'}'`;
}

function normalizeYaml(x: unknown): unknown {
  if (x instanceof Date) return x.toISOString();
  if (x instanceof Uint8Array) return Buffer.from(x).toString('base64');
  if (Array.isArray(x)) return x.map(normalizeYaml);
  if (x instanceof Set) return [...x].map(normalizeYaml);
  if (x instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of x) o[typeof k === 'string' ? k : String(k)] = normalizeYaml(v);
    return o;
  }
  if (x !== null && typeof x === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) o[k] = normalizeYaml(v);
    return o;
  }
  if (typeof x === 'number' && !Number.isFinite(x)) return String(x);
  return x;
}

export const ENCODING_BUILTINS: BuiltinDef[] = [
  { name: 'json.marshal', arity: 1, fn: (a) => marshalJson(arg(a, 0)) },
  {
    name: 'json.marshal_with_options',
    arity: 2,
    fn: (a) => {
      const name = 'json.marshal_with_options';
      const v = arg(a, 0);
      const opts = obj(name, a, 1);
      let pretty: boolean | undefined;
      let indent = '\t';
      let prefix = '';
      let indentSet = false;
      let prefixSet = false;
      for (const [k, x] of opts.entries()) {
        if (k === 'pretty') {
          if (typeof x !== 'boolean') throw builtinError(name, 'pretty option must be a boolean');
          pretty = x;
        } else if (k === 'indent') {
          if (typeof x !== 'string') throw builtinError(name, 'indent option must be a string');
          indent = x;
          indentSet = true;
        } else if (k === 'prefix') {
          if (typeof x !== 'string') throw builtinError(name, 'prefix option must be a string');
          prefix = x;
          prefixSet = true;
        } else throw new BuiltinError('eval_type_error', `${name}: operand 2 object contained unknown key ${JSON.stringify(k)}`);
      }
      const doPretty = pretty ?? (indentSet || prefixSet);
      if (!doPretty) return marshalJson(v);
      // Go's json.MarshalIndent starts the first line with the prefix too
      return prefix + marshalIndent(v, prefix, indent, 0, true);
    },
  },
  {
    name: 'json.unmarshal',
    arity: 1,
    fn: (a, ctx) => {
      const s = str('json.unmarshal', a, 0);
      const checked = ctx.cache.get(LAST_VALID_JSON);
      if (Array.isArray(checked) && checked[0] === s) return checked[1];
      try {
        return parseJsonValue(s);
      } catch (e) {
        if (e instanceof JsonSyntaxError) throw builtinError('json.unmarshal', e.message);
        throw e;
      }
    },
  },
  {
    name: 'json.is_valid',
    arity: 1,
    fn: (a, ctx) => {
      const s = arg(a, 0);
      if (typeof s !== 'string') return false;
      try {
        ctx.cache.set(LAST_VALID_JSON, [s, parseJsonValue(s)]);
        return true;
      } catch {
        return false;
      }
    },
  },
  {
    name: 'yaml.marshal',
    arity: 1,
    fn: (a) => yaml().stringify(toJSON(arg(a, 0)), { indentSeq: false, sortMapEntries: true, lineWidth: 0 }),
  },
  { name: 'yaml.unmarshal', arity: 1, fn: (a) => yamlToValue('yaml.unmarshal', str('yaml.unmarshal', a, 0)) },
  {
    name: 'yaml.is_valid',
    arity: 1,
    fn: (a) => {
      const s = arg(a, 0);
      if (typeof s !== 'string') return false;
      try {
        yamlToValue('yaml.is_valid', s);
        return true;
      } catch {
        return false;
      }
    },
  },
  { name: 'base64.encode', arity: 1, fn: (a) => Buffer.from(str('base64.encode', a, 0), 'utf8').toString('base64') },
  {
    name: 'base64.decode',
    arity: 1,
    fn: (a) => {
      const s = str('base64.decode', a, 0);
      if (!B64.test(s)) return goDecode('base64.decode', s, false);
      return bytesToString(Buffer.from(s, 'base64'));
    },
  },
  {
    name: 'base64.is_valid',
    arity: 1,
    fn: (a) => B64.test(str('base64.is_valid', a, 0)),
  },
  { name: 'base64url.encode', arity: 1, fn: (a) => Buffer.from(str('base64url.encode', a, 0), 'utf8').toString('base64').replaceAll('+', '-').replaceAll('/', '_') },
  { name: 'base64url.encode_no_pad', arity: 1, fn: (a) => Buffer.from(str('base64url.encode_no_pad', a, 0), 'utf8').toString('base64url') },
  {
    name: 'base64url.decode',
    arity: 1,
    fn: (a) => {
      // OPA accepts padded and unpadded input.
      const s = str('base64url.decode', a, 0);
      const ascii = asciiFromRawBase64url(s);
      if (ascii !== undefined) return ascii;
      if (!B64URL.test(s) && !B64URL_RAW.test(s)) {
        // as OPA: unpadded input is padded first (RFC 7515 Appendix C), then Go's URLEncoding decodes it
        const n = Buffer.byteLength(s, 'utf8') % 4;
        if (s.endsWith('=') || n === 0) return goDecode('base64url.decode', s, true);
        if (n === 1) throw builtinError('base64url.decode', `illegal base64url string: ${s}`);
        return goDecode('base64url.decode', s + '='.repeat(4 - n), true);
      }
      return bytesToString(Buffer.from(s, 'base64url'));
    },
  },
  { name: 'hex.encode', arity: 1, fn: (a) => Buffer.from(str('hex.encode', a, 0), 'utf8').toString('hex') },
  {
    name: 'hex.decode',
    arity: 1,
    fn: (a) => {
      const s = str('hex.decode', a, 0);
      for (let i = 0; i < s.length; i++) {
        const c = s[i]!;
        if (!/[0-9a-fA-F]/.test(c)) {
          const cp = s.codePointAt(i)!;
          const ch = String.fromCodePoint(cp);
          throw builtinError('hex.decode', `encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(ch).replace(/^"|"$/g, "'")}`);
        }
      }
      if (s.length % 2 !== 0) throw builtinError('hex.decode', 'encoding/hex: odd length hex string');
      return bytesToString(Buffer.from(s, 'hex'));
    },
  },
  { name: 'urlquery.encode', arity: 1, fn: (a) => queryEscape(str('urlquery.encode', a, 0)) },
  { name: 'urlquery.decode', arity: 1, fn: (a) => queryUnescape('urlquery.decode', str('urlquery.decode', a, 0)) },
  {
    name: 'urlquery.encode_object',
    arity: 1,
    fn: (a) => {
      const name = 'urlquery.encode_object';
      const o = obj(name, a, 0);
      const parts: string[] = [];
      const keys = o.keys().map((k) => {
        if (typeof k !== 'string') throw elementError(name, 1, o, 'string key', k);
        return k;
      });
      keys.sort();
      for (const k of keys) {
        const v = o.get(k)!;
        const vals: string[] = [];
        if (typeof v === 'string') vals.push(v);
        else if (Array.isArray(v) || v instanceof SetValue) {
          for (const x of Array.isArray(v) ? v : v.values()) {
            if (typeof x !== 'string') throw builtinError(name, 'values must be strings, arrays of strings or sets of strings');
            vals.push(x);
          }
        } else throw oneOfError(name, 1, ['string', 'array', 'set'], v);
        for (const x of vals) parts.push(`${queryEscape(k)}=${queryEscape(x)}`);
      }
      return parts.join('&');
    },
  },
  {
    name: 'urlquery.decode_object',
    arity: 1,
    fn: (a) => {
      const name = 'urlquery.decode_object';
      const s = str(name, a, 0);
      const acc = new Map<string, string[]>();
      for (const part of s.split('&')) {
        if (part === '') continue;
        if (part.includes(';')) throw builtinError(name, 'invalid semicolon separator in query');
        const eq = part.indexOf('=');
        const k = queryUnescape(name, eq < 0 ? part : part.slice(0, eq));
        const v = eq < 0 ? '' : queryUnescape(name, part.slice(eq + 1));
        const list = acc.get(k) ?? [];
        list.push(v);
        acc.set(k, list);
      }
      const out = new ObjectValue();
      for (const [k, vs] of acc) out.set(k, vs);
      return out;
    },
  },
];

registerBuiltins(ENCODING_BUILTINS);
