/**
 * JSON as Go's encoding/json reads it, for the bundle files OPA parses with it (.manifest,
 * data.json, .signatures.json and the signed payload): Go's UTF-8 repair of the bytes, the engine's
 * Go JSON reader (rego/go-json.ts) building a value tree, not JS objects, so each caller can decode
 * it into OPA's Go structs with their own type rules, and Go's case-insensitive field matching.
 */
import { GoJsonSyntaxError, readGoJson, type GoJsonBuilder } from '../rego/go-json.ts';

export type JNode =
  | { t: 'obj'; entries: [string, JNode][] }
  | { t: 'arr'; items: JNode[] }
  | { t: 'str'; v: string }
  | { t: 'num'; lit: string }
  | { t: 'lit'; v: boolean | null };

/** Decodes UTF-8 as Go does when it converts bytes to runes: each invalid byte becomes U+FFFD. */
export function goUtf8(b: Uint8Array): string {
  let out = '';
  let i = 0;
  let run = 0;
  const flush = (end: number) => {
    if (end > run) out += Buffer.from(b.buffer, b.byteOffset + run, end - run).toString('utf8');
  };
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    }
    let ok = n > 0 && i + n < b.length;
    if (ok) {
      const b1 = b[i + 1];
      ok = b1 !== undefined && b1 >= lo && b1 <= hi;
      for (let k = 2; ok && k <= n; k++) {
        const bk = b[i + k];
        ok = bk !== undefined && bk >= 0x80 && bk <= 0xbf;
      }
    }
    if (ok) {
      i += n + 1;
      continue;
    }
    flush(i);
    out += '\uFFFD';
    i++;
    run = i;
  }
  flush(b.length);
  return out;
}

export class JsonError extends Error {}

/** Builds the value tree bundle decoding walks. */
const TREE: GoJsonBuilder<JNode, [string, JNode][]> = {
  string: (v) => ({ t: 'str', v }),
  number: (lit) => ({ t: 'num', lit }),
  literal: (v) => ({ t: 'lit', v }),
  array: (items) => ({ t: 'arr', items }),
  openObject: () => [],
  member: (entries, k, v) => {
    entries.push([k, v]);
  },
  closeObject: (entries) => ({ t: 'obj', entries }),
};

/** The engine's Go JSON reader, its faults worded with their offset. `first`: stop after the first value (json.Decoder.Decode). */
export function parseGoJson(text: string, first: boolean): JNode {
  try {
    return readGoJson(text, TREE, { first });
  } catch (e) {
    if (!(e instanceof GoJsonSyntaxError)) throw e;
    throw new JsonError(e.atEnd ? `unexpected end of JSON input (${e.phrase})` : `invalid character ${JSON.stringify(text[e.offset])} ${e.phrase} at offset ${e.offset}`);
  }
}

/** Go's encoding/json field matching: exact, else case-insensitive with its special folds. */
export function goFold(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/\u017f/g, 's').replace(/\u212a/g, 'k');
}
