/**
 * Canonical text of a large document (the manifest as authored, the catalog) that reuses the text
 * of every member two levels down (a grant, a data_access row, a server) from the previous compile
 * when that member is unchanged, so one edited grant re-encodes one grant, not 200,000. Members of
 * a list are matched by position after the longest equal prefix and suffix (an insertion or a
 * removal shifts the rest); members of an object by key. The one encoder (src/canonical/json.ts)
 * writes every new member and assembles the levels above, so the text is what it would write for
 * the whole value.
 */
import { canonicalString, CanonicalText } from '../../canonical/json.ts';
import { isPlainObject } from '../../canonical/json-object.ts';

/** The value, its canonical text and its members' (down to the memoised depth). */
export interface MemoNode {
  readonly value: unknown;
  readonly text: string;
  readonly members?: readonly MemoNode[] | ReadonlyMap<string, MemoNode>;
}

const OPTIONS = { allowFloats: true } as const;
const DEPTH = 2;

/** Structural equality of JSON values (NaN equals nothing, so it is always re-encoded and refused). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
  return true;
}

function listMembers(value: readonly unknown[], previous: readonly MemoNode[], depth: number): MemoNode[] {
  const out: MemoNode[] = new Array<MemoNode>(value.length);
  let head = 0;
  while (head < value.length && head < previous.length && jsonEqual(previous[head]!.value, value[head])) out[head] = previous[head]!, head++;
  let tail = 0;
  while (tail < value.length - head && tail < previous.length - head && jsonEqual(previous[previous.length - 1 - tail]!.value, value[value.length - 1 - tail])) {
    out[value.length - 1 - tail] = previous[previous.length - 1 - tail]!;
    tail++;
  }
  // What lies between is new or edited; an edit in place keeps its position, so offer that member.
  for (let i = head; i < value.length - tail; i++) out[i] = memo(value[i], value.length === previous.length ? previous[i] : undefined, depth + 1);
  return out;
}

function memo(value: unknown, previous: MemoNode | undefined, depth: number): MemoNode {
  // Above the memoised depth only the same object is reused: comparing would walk the whole value twice.
  if (previous !== undefined && (depth === DEPTH ? jsonEqual(previous.value, value) : previous.value === value)) return previous;
  if (depth === DEPTH || (!Array.isArray(value) && !isPlainObject(value))) return { value, text: canonicalString(value, OPTIONS) };
  if (Array.isArray(value)) {
    const members = listMembers(value, Array.isArray(previous?.members) ? (previous.members as readonly MemoNode[]) : [], depth);
    return { value, text: `[${members.map((m) => m.text).join(',')}]`, members };
  }
  const before = previous?.members instanceof Map ? previous.members : undefined;
  const members = new Map<string, MemoNode>();
  const pieces = Object.create(null) as Record<string, CanonicalText>;
  for (const [k, v] of Object.entries(value)) {
    const m = memo(v, before?.get(k), depth + 1);
    members.set(k, m);
    pieces[k] = new CanonicalText(m.text);
  }
  // The encoder sorts and normalises the keys (refusing an NFC collision) as for the whole value.
  return { value, text: canonicalString(pieces, OPTIONS), members };
}

/**
 * The canonical text of `value` (what `canonicalString(value, {allowFloats: true})` writes) with
 * the memo to pass to the next call.
 *
 * @example
 * const first = memoisedCanonical(manifest);
 * const next = memoisedCanonical(editedManifest, first); // re-encodes only the edited members
 */
export function memoisedCanonical(value: unknown, previous?: MemoNode): MemoNode {
  return memo(value, previous, 0);
}
