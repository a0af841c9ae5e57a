/**
 * File digests for an OPA bundle's `.signatures.json`, by OPA's rules (reference/opa-bundle-format.md
 * §3 "How each file's digest is computed"; OPA: v1/bundle/hash.go). This is NOT our connectome
 * canonical form (RFC 8785): OPA hashes a structured file (`data.json`, `.manifest`) by parsing it and
 * re-encoding it compactly with object members sorted by the UTF-8 bytes of their keys, numbers
 * written exactly as they appear in the file, and strings escaped as Go's encoder does with HTML
 * escaping off (JSON.stringify's escaping, except U+2028/U+2029 as `\u2028`/`\u2029` and lone
 * surrogates as U+FFFD). Every other file is hashed as raw bytes.
 */
import { createHash } from 'node:crypto';
import { ToolgateError } from '../errors.ts';

/** The algorithm names OPA accepts in a `files` entry, with node:crypto's name for each. */
export const OPA_HASH_ALGORITHMS = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
} as const;
export type OpaHashAlgorithm = keyof typeof OPA_HASH_ALGORITHMS;

export function isOpaHashAlgorithm(v: unknown): v is OpaHashAlgorithm {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(OPA_HASH_ALGORITHMS, v);
}

/** A JSON value that keeps each number's literal text. */
type Node = { t: 'lit'; text: string } | { t: 'str'; v: string } | { t: 'arr'; v: Node[] } | { t: 'obj'; v: [string, Node][] };

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly source: string,
  ) {}
  fail(msg: string): never {
    throw new ToolgateError('BUNDLE_INVALID', `${this.source}: not valid JSON at offset ${this.i}: ${msg}`, { at: [{ file: this.source }] });
  }
  ws(): void {
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }
  value(depth: number): Node {
    if (depth > 1000) this.fail('nested too deeply');
    this.ws();
    const c = this.s[this.i];
    if (c === '{') {
      this.i++;
      const members: [string, Node][] = [];
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return { t: 'obj', v: members };
      }
      for (;;) {
        this.ws();
        if (this.s[this.i] !== '"') this.fail('expected a member name');
        const k = this.string();
        this.ws();
        if (this.s[this.i] !== ':') this.fail('expected ":"');
        this.i++;
        members.push([k, this.value(depth + 1)]);
        this.ws();
        if (this.s[this.i] === ',') {
          this.i++;
          continue;
        }
        if (this.s[this.i] === '}') {
          this.i++;
          return { t: 'obj', v: members };
        }
        this.fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      this.i++;
      const items: Node[] = [];
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return { t: 'arr', v: items };
      }
      for (;;) {
        items.push(this.value(depth + 1));
        this.ws();
        if (this.s[this.i] === ',') {
          this.i++;
          continue;
        }
        if (this.s[this.i] === ']') {
          this.i++;
          return { t: 'arr', v: items };
        }
        this.fail('expected "," or "]"');
      }
    }
    if (c === '"') return { t: 'str', v: this.string() };
    for (const lit of ['true', 'false', 'null']) {
      if (this.s.startsWith(lit, this.i)) {
        this.i += lit.length;
        return { t: 'lit', text: lit };
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 1100));
    if (m === null) this.fail(`unexpected ${c === undefined ? 'end of text' : JSON.stringify(c)}`);
    this.i += m[0].length;
    return { t: 'lit', text: m[0] };
  }
  string(): string {
    const start = this.i;
    this.i++;
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) break;
      if (c < 0x20) this.fail('control character in a string');
      this.i += c === 0x5c ? 2 : 1;
    }
    this.i++;
    try {
      return JSON.parse(this.s.slice(start, this.i)) as string;
    } catch {
      this.fail('bad string escape');
    }
  }
}

/** Parses JSON keeping number literals; BOM stripped, as OPA does. */
function parseKeepingNumbers(text: string, source: string): Node {
  const p = new Parser(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, source);
  const v = p.value(0);
  p.ws();
  if (p.i !== p.s.length) p.fail('trailing characters');
  return v;
}

const encoder = new TextEncoder();

/** Go's string encoding (HTML escaping off), for a JS string. */
export function goJsonQuote(s: string): string {
  // Lone surrogates have no UTF-8 form; Go's decoder turned them into U+FFFD.
  const wellFormed = s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return JSON.stringify(wellFormed).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function compareUtf8(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function encode(n: Node): string {
  switch (n.t) {
    case 'lit':
      return n.text;
    case 'str':
      return goJsonQuote(n.v);
    case 'arr':
      return `[${n.v.map(encode).join(',')}]`;
    case 'obj': {
      // Go decodes into a map, so a repeated key keeps its last value.
      const m = new Map<string, Node>();
      for (const [k, v] of n.v) m.set(k, v);
      const keys = [...m.keys()].sort(compareUtf8);
      return `{${keys.map((k) => `${goJsonQuote(k)}:${encode(m.get(k)!)}`).join(',')}}`;
    }
  }
}

/**
 * The text OPA hashes for a structured file (`data.json` or `.manifest`).
 *
 * @example opaCanonicalJson('{"b":1.0,"a":"\u2028"}', 'data.json') // '{"a":"\\u2028","b":1.0}'
 */
export function opaCanonicalJson(text: string, source: string): string {
  return encode(parseKeepingNumbers(text, source));
}

/** True for the files OPA hashes structurally; `data.yaml` needs a YAML parse, which we refuse. */
function structuredKind(name: string): 'json' | 'yaml' | undefined {
  const base = name.slice(name.lastIndexOf('/') + 1);
  if (base === 'data.json' || base === '.manifest') return 'json';
  if (base === 'data.yaml') return 'yaml';
  return undefined;
}

/** The bytes OPA hashes for a bundle file (name without the leading `/`). */
export function opaHashInput(name: string, bytes: Uint8Array, source = name): Uint8Array {
  const kind = structuredKind(name);
  if (kind === undefined) return bytes;
  if (kind === 'yaml') throw new ToolgateError('BUNDLE_INVALID', `${source}: ${name}: data.yaml files are not supported by toolgate's bundle signing (OPA hashes them after a YAML-to-JSON conversion)`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ToolgateError('BUNDLE_INVALID', `${source}: ${name} is not valid UTF-8`, { at: [{ file: source, path: name }] });
  }
  return encoder.encode(opaCanonicalJson(text, `${source}:${name}`));
}

/** Lowercase hex digest of a bundle file as OPA computes it. */
export function opaFileHash(name: string, bytes: Uint8Array, algorithm: OpaHashAlgorithm = 'SHA-256', source = name): string {
  return createHash(OPA_HASH_ALGORITHMS[algorithm]).update(opaHashInput(name, bytes, source)).digest('hex');
}
