/**
 * JSON as Go's encoding/json reads it into OPA's structs. The verdicts hang on its quirks: field
 * names match case-insensitively and the last match wins, null leaves a string as it was (and
 * empties a list), `iat` must be an integer literal in int64 range, a wrong type is an error, and
 * a json.Decoder (used for .signatures.json) reads the first value and ignores what follows.
 */
import { goFold, JsonError, type JNode } from './go-json.ts';

/** Go's name for a JSON value's kind, as its unmarshal errors print it. */
export function goKind(node: JNode): string {
  if (node.t === 'lit') return node.v === null ? 'null' : 'bool';
  return { obj: 'object', arr: 'array', str: 'string', num: 'number' }[node.t];
}

/** The members of a Go struct value: `fields` maps each lower-case field name to the last member that folds to it. */
export function goStruct(node: JNode, type: string, fields: readonly string[]): Map<string, JNode> {
  if (node.t === 'lit' && node.v === null) return new Map();
  if (node.t !== 'obj') throw new JsonError(`cannot unmarshal ${goKind(node)} into ${type}`);
  const out = new Map<string, JNode>();
  for (const [k, v] of node.entries) {
    const f = goFold(k);
    if (!fields.includes(f)) continue;
    // null into a string or number is a no-op in Go; into a slice it empties it.
    if (v.t === 'lit' && v.v === null && f !== 'files' && f !== 'signatures') continue;
    out.set(f, v);
  }
  return out;
}

export function goString(node: JNode | undefined, where: string): string {
  if (node === undefined) return '';
  if (node.t !== 'str') throw new JsonError(`cannot unmarshal ${goKind(node)} into ${where} of type string`);
  return node.v;
}

export function goInt64(node: JNode | undefined, where: string): number | undefined {
  if (node === undefined) return undefined;
  if (node.t !== 'num' || !/^-?\d+$/.test(node.lit)) throw new JsonError(`cannot unmarshal ${node.t === 'num' ? `number ${node.lit}` : goKind(node)} into ${where} of type int64`);
  const n = BigInt(node.lit);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw new JsonError(`cannot unmarshal number ${node.lit} into ${where} of type int64`);
  return Number(n);
}

export function goList(node: JNode | undefined, where: string): readonly JNode[] {
  if (node === undefined || (node.t === 'lit' && node.v === null)) return [];
  if (node.t !== 'arr') throw new JsonError(`cannot unmarshal ${goKind(node)} into ${where} of type list`);
  return node.items;
}

export function decodeUtf8(bytes: Uint8Array): string {
  // Keep a BOM: Go's JSON reader refuses one, so must we.
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}
