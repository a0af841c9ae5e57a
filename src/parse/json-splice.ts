/**
 * A JSON text read again after an edit, from its previous version: the previous value with only the
 * member the edit falls in read anew, every other part the previous value's own object, so a watch
 * re-reads a large catalog in the time of the one tool a save changed.
 *
 * The edit is where the two texts stop agreeing from the front and from the back. The innermost
 * member whose value holds the front of it is read from the new text; when the new text goes on
 * after that value exactly as the previous text went on after the previous one, the new text is the
 * previous one with that value's text replaced, and so its value is the previous value with that
 * member replaced. Otherwise the member around it is tried, out to the whole document, which is left
 * to a full read (undefined). A member that does not read cleanly is left to it too, so every fault
 * is reported by the full read, at its place in the whole text.
 */

import { commonHead, commonTail } from './common-ends.ts';

/** One open container of the text before the edit, and where its member being read begins. */
interface Level {
  readonly array: boolean;
  /** An array's member index, or -1 before its first member. */
  index: number;
  /** An object member's key, as the offsets of its quoted text. */
  keyStart: number;
  keyEnd: number;
  /** Where the member's value begins, or -1 while it has not begun (between members, or in a key). */
  valueStart: number;
  /** In an object, whether the next string is a key. */
  expectKey: boolean;
}

/** The member read anew: its value, and where its text lies in the new text. */
export interface SplicedMember {
  readonly value: unknown;
  readonly start: number;
  readonly end: number;
}

export type MemberReader = (text: string, start: number, depth: number) => { value: unknown; end: number } | undefined;

/** How many members out from the edit are tried before the whole text is read. */
const MAX_TRIES = 8;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** The offset just after the string whose opening quote is at `at` (the text's length when it is not closed). */
function stringEnd(s: string, at: number): number {
  for (let i = at + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return s.length;
}

/** The containers open at `until` in the valid JSON text `s`, outermost first (the document itself is the first). */
function openAt(s: string, until: number): Level[] {
  const stack: Level[] = [{ array: true, index: 0, keyStart: -1, keyEnd: -1, valueStart: -1, expectKey: false }];
  for (let i = 0; i < until; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) continue;
    const top = stack[stack.length - 1]!;
    if (c === 44) {
      if (top.array) top.index++;
      else top.expectKey = true;
      top.valueStart = -1;
      continue;
    }
    if (c === 58) continue;
    if (c === 93 || c === 125) {
      stack.pop();
      continue;
    }
    if (c === 34 && !top.array && top.expectKey) {
      top.keyStart = i;
      top.keyEnd = stringEnd(s, i);
      top.expectKey = false;
      i = top.keyEnd - 1;
      continue;
    }
    // A value begins here.
    if (top.valueStart === -1) {
      top.valueStart = i;
      if (top.array && top.index === -1) top.index = 0;
    }
    if (c === 123 || c === 91) stack.push({ array: c === 91, index: -1, keyStart: -1, keyEnd: -1, valueStart: -1, expectKey: c === 123 });
    else if (c === 34) i = stringEnd(s, i) - 1;
  }
  return stack;
}

/** The offset just after the value that begins at `at` in the valid JSON text `s`. */
function valueEnd(s: string, at: number): number {
  const c = s.charCodeAt(at);
  if (c === 34) return stringEnd(s, at);
  if (c !== 123 && c !== 91) {
    let i = at;
    while (i < s.length && !isSpace(s.charCodeAt(i)) && ',]}'.indexOf(s[i]!) === -1) i++;
    return i;
  }
  let depth = 0;
  for (let i = at; i < s.length; i++) {
    const d = s.charCodeAt(i);
    if (d === 34) i = stringEnd(s, i) - 1;
    else if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) if (--depth === 0) return i + 1;
  }
  return s.length;
}

/** `container` (an array or a plain object of a parsed value) with its member `key` replaced by `value`, as a new container. */
function withMember(container: unknown, key: string | number, value: unknown): unknown {
  if (Array.isArray(container)) {
    const copy = container.slice();
    copy[key as number] = value;
    return copy;
  }
  // fromEntries defines each key as an own property, `__proto__` too, in the same order.
  return Object.fromEntries(Object.keys(container as object).map((k) => [k, k === key ? value : (container as Record<string, unknown>)[k]]));
}

/**
 * The value of `text`, given the previous text and the value it was read as: the previous value
 * with one member read by `read` from `text` (see the opening comment), and which member that was;
 * undefined when the edit is not within one member's value, or that member does not read cleanly.
 */
export function spliceJson(previous: { readonly text: string; readonly value: unknown }, text: string, read: MemberReader): { value: unknown; member: SplicedMember } | undefined {
  const before = previous.text;
  if (before === text) return undefined;
  const head = commonHead(before, text);
  const tail = commonTail(before, text, Math.min(before.length, text.length) - head);
  // Through the first differing character: a member that begins there is found too.
  const levels = openAt(before, Math.min(head + 1, before.length));
  // Each try reads its member, which holds the last one's: past a few, reading the whole text is as quick.
  for (let d = levels.length - 1; d >= Math.max(1, levels.length - MAX_TRIES); d--) {
    const level = levels[d]!;
    if (level.valueStart === -1) continue;
    const start = level.valueStart;
    const member = read(text, start, d);
    if (member === undefined) return undefined;
    const after = text.length - member.end;
    if (member.end < text.length - tail || after !== before.length - valueEnd(before, start)) continue;
    // The path to the member, and the containers along it in the previous value.
    const path: (string | number)[] = [];
    const containers: unknown[] = [];
    let at: unknown = previous.value;
    for (let k = 1; k <= d; k++) {
      const l = levels[k]!;
      const key = l.array ? l.index : (JSON.parse(before.slice(l.keyStart, l.keyEnd)) as string);
      containers.push(at);
      path.push(key);
      at = (at as Record<string | number, unknown>)[key];
    }
    let value = member.value;
    for (let k = d - 1; k >= 0; k--) value = withMember(containers[k], path[k]!, value);
    return { value, member: { value: member.value, start, end: member.end } };
  }
  return undefined;
}
