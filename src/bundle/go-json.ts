/**
 * JSON as Go's encoding/json reads it, for the bundle files OPA parses with it (.manifest,
 * data.json, .signatures.json and the signed payload): Go's UTF-8 repair of the bytes, the engine's
 * Go JSON reader (rego/go-json.ts) building a value tree, not JS objects, so each caller can decode
 * it into OPA's Go structs with their own type rules, and Go's case-insensitive field matching.
 */
import { wellFormedLength } from '../canonical/utf8.ts';
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
    const n = wellFormedLength(b, i);
    if (n > 0) {
      i += n;
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
