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
import { JsonError, parseGoJson, type JNode } from './go-json.ts';

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

/** Parses JSON as Go does, keeping number literals (go-json.ts); BOM stripped, as OPA does. */
function parseKeepingNumbers(text: string, source: string): JNode {
  try {
    return parseGoJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, false);
  } catch (e) {
    if (e instanceof JsonError) throw new ToolgateError('BUNDLE_INVALID', `${source}: not valid JSON: ${e.message}`, { at: [{ file: source }] });
    throw e;
  }
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

function encode(n: JNode): string {
  switch (n.t) {
    case 'lit':
      return String(n.v);
    case 'num':
      return n.lit;
    case 'str':
      return goJsonQuote(n.v);
    case 'arr':
      return `[${n.items.map(encode).join(',')}]`;
    case 'obj': {
      // Go decodes into a map, so a repeated key keeps its last value.
      const m = new Map<string, JNode>();
      for (const [k, v] of n.entries) m.set(k, v);
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
