/**
 * An artifact's bytes put together from byte fragments that are already canonical JSON (an agent's
 * decision map, a tool's entry) and the canonical text the one encoder writes around them, so a
 * recompile copies the fragments it reuses straight from the previous artifact's bytes instead of
 * decoding, re-encoding and re-hashing tens of megabytes of text.
 *
 * Each fragment stands in the value as a placeholder (CanonicalText holding NUL, its number, NUL).
 * The encoder escapes U+0000 in every string it writes, so a raw NUL in its output can only come
 * from a placeholder; the output is cut there and the fragments' bytes are copied in (they are
 * never scanned, so what they hold does not matter). The result is
 * what the encoder writes for the value with each fragment's text in place of its placeholder
 * (test/unit/compile/fragments.test.ts), and the offset of every fragment in it is recorded, so the
 * next compile can find the fragment in this artifact again.
 */
import { ByteSegments } from '../../canonical/byte-segments.ts';
import { canonicalString, CanonicalText, isAscii, quoteString } from '../../canonical/json.ts';
import { ToolgateError } from '../../errors.ts';

/** Where a fragment lies in its artifact's bytes. */
export interface Span {
  readonly at: number;
  readonly length: number;
}

export function spanBytes(bytes: Uint8Array, span: Span): Uint8Array {
  return bytes.subarray(span.at, span.at + span.length);
}

const NUL = '\u0000';
const OPTIONS = { allowFloats: true } as const;

/**
 * The canonical text of an object from its keys and members' texts (placeholders, say). Keys that
 * are ASCII and already ascending are in canonical order as they come and need no normalising, so
 * the text is written directly; any other object goes through the encoder, which sorts and
 * normalises. An object keyed by tool is the one where the encoder's sorting and checking cost most.
 */
export function objectText(entries: readonly (readonly [string, CanonicalText])[]): CanonicalText {
  let plain = true;
  for (let i = 0; i < entries.length && plain; i++) plain = isAscii(entries[i]![0]) && (i === 0 || entries[i - 1]![0] < entries[i]![0]);
  if (!plain) return new CanonicalText(canonicalString(Object.fromEntries(entries)));
  return new CanonicalText(`{${entries.map(([k, v]) => `${quoteString(k)}:${v.text}`).join(',')}}`);
}

/**
 * A fragment's bytes: one array, or several read in order (a previous member with a few entries
 * spliced in, which is never copied into a buffer of its own before its artifact).
 */
export type FragmentBytes = Uint8Array | ByteSegments;

/** The fragments of one artifact, each given a placeholder to put in the value the encoder writes. */
export class FragmentSlots {
  private readonly fragments: FragmentBytes[] = [];

  /** A placeholder for `bytes` (canonical JSON text, UTF-8), and its slot number. */
  add(bytes: FragmentBytes): { placeholder: CanonicalText; slot: number } {
    const slot = this.fragments.length;
    this.fragments.push(bytes);
    return { placeholder: new CanonicalText(`${NUL}${slot}${NUL}`), slot };
  }

  /**
   * What `assemble(value)` gives, as its parts: the encoder's texts with the fragments between
   * them, for hashing a part at a time without a buffer of the whole (the manifest's text is tens
   * of megabytes, and only its digest is needed).
   */
  parts(value: unknown): (string | Uint8Array)[] {
    const parts = this.split(value, '');
    const out: (string | Uint8Array)[] = [parts[0]!];
    for (let i = 1; i < parts.length; i += 2) {
      const f = this.fragments[Number(parts[i])]!;
      if (f instanceof ByteSegments) f.forEachPart(0, f.length, (part) => out.push(part));
      else out.push(f);
      out.push(parts[i + 1]!);
    }
    return out;
  }

  /** The encoder's text of `value` and `suffix`, cut at the placeholders: text, slot, text, …, text. */
  private split(value: unknown, suffix: string): string[] {
    const parts = `${canonicalString(value, OPTIONS)}${suffix}`.split(NUL);
    // Text holding a raw NUL besides the placeholders is not canonical (the encoder escapes NUL): refused, not cut.
    if (parts.length !== 2 * this.fragments.length + 1) throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `fragment assembly: ${(parts.length - 1) / 2} placeholders in the text for ${this.fragments.length} fragments`);
    return parts;
  }

  /**
   * The canonical bytes of `value` (holding this set's placeholders) followed by `suffix`, and the
   * offset of each slot's fragment in them. Every slot must appear exactly once. `allocate` gives
   * the memory they are written into (a watch's ArtifactBuffers).
   */
  assemble(value: unknown, suffix = '', allocate: (n: number) => Buffer = Buffer.allocUnsafeSlow): { bytes: Uint8Array; at: readonly number[] } {
    const parts = this.split(value, suffix);
    let total = 0;
    for (let i = 0; i < parts.length; i += 2) total += Buffer.byteLength(parts[i]!, 'utf8');
    for (const f of this.fragments) total += f.length;
    const out = allocate(total);
    const at = new Array<number>(this.fragments.length).fill(-1);
    let pos = out.write(parts[0]!, 0, 'utf8');
    for (let i = 1; i < parts.length; i += 2) {
      const slot = Number(parts[i]);
      const bytes = this.fragments[slot]!;
      if (at[slot] !== -1) throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `fragment assembly: fragment ${slot} placed twice`);
      at[slot] = pos;
      if (bytes instanceof ByteSegments) bytes.forEachPart(0, bytes.length, (part, from) => out.set(part, pos + from));
      else out.set(bytes, pos);
      pos += bytes.length;
      pos += out.write(parts[i + 1]!, pos, 'utf8');
    }
    return { bytes: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), at };
  }
}
