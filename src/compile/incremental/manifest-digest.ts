/**
 * The governance digest (SHA-256 of the manifest's canonical text) from the YAML pieces the
 * manifest was read in (src/parse/yaml-pieces.ts): each piece's canonical text is taken from the
 * previous compile's when its text is unchanged (same digest) and encoded otherwise, and the one
 * encoder assembles the top level around them. A section's piece is its key's whole value; the runs
 * of a sequence are its items, so the sequence is their texts joined by commas, in brackets. That is
 * the text the encoder writes for the whole value (test/unit/compile/manifest-digest.test.ts).
 * Without pieces, or when a piece cannot be encoded (the whole value is then encoded to say where),
 * the whole value is hashed as it is encoded.
 */
import { canonicalString, canonicalTextDigestHex, CanonicalText } from '../../canonical/json.ts';
import type { Estate } from '../../governance/estate.ts';
import type { ManifestPiece } from './compile-state.ts';
import { FragmentSlots } from './fragments.ts';
import { resumablePartsSha256, type ResumablePartsDigest } from '../../canonical/resumable-sha256.ts';

const OPTIONS = { allowFloats: true } as const;
const encoder = new TextEncoder();

/** What this reads of a manifest: its value and the YAML pieces it was read in. */
type Manifest = Estate['manifest'];

interface ManifestDigest {
  readonly digest: string;
  /** The pieces to keep for the next compile (those with JSON), with their canonical texts. */
  readonly pieces: readonly ManifestPiece[];
  /** The digest's parts and saved hash states, for the next compile's to resume from (when it was hashed in parts). */
  readonly resumable?: ResumablePartsDigest;
}

/** A piece's canonical text: a section's value, or a run's items without the brackets. */
function pieceText(kind: 'section' | 'items', value: unknown): Uint8Array {
  const text = canonicalString(value, OPTIONS);
  return encoder.encode(kind === 'section' ? text : text.slice(1, -1));
}

/**
 * `previous`: the pieces the previous compile kept, and its governance digest, which is this one's
 * when the pieces are the same ones in the same order (the text is made of them alone); `resume`:
 * that digest's parts and states, so hashing starts at the first part that differs.
 */
export function manifestDigest(manifest: Pick<Manifest, 'raw' | 'pieces'>, previous: readonly ManifestPiece[] = [], previousDigest?: string, resume?: ResumablePartsDigest): ManifestDigest {
  const pieces = manifest.pieces;
  const whole = () => ({ digest: canonicalTextDigestHex(manifest.raw ?? {}, OPTIONS), pieces: [] });
  if (pieces === undefined || pieces.length === 0) return whole();
  if (previousDigest !== undefined && pieces.length === previous.length && pieces.every((p, i) => p.json !== undefined && p.digest === previous[i]!.digest && p.key === previous[i]!.key)) {
    return { digest: previousDigest, pieces: previous, ...(resume ? { resumable: resume } : {}) };
  }
  const known = new Map(previous.map((p) => [p.digest, p.canonical]));
  const slots = new FragmentSlots();
  const sections = new Map<string, { kind: 'section' | 'items'; placeholders: string[] }>();
  try {
    for (const p of pieces) {
      // A run of no items would leave an empty member between two commas.
      if (p.kind === 'items' && (!Array.isArray(p.value) || p.value.length === 0)) return whole();
      let text = known.get(p.digest);
      if (text === undefined) known.set(p.digest, (text = pieceText(p.kind, p.value)));
      const placeholder = slots.add(text).placeholder.text;
      const section = sections.get(p.key);
      if (section === undefined) sections.set(p.key, { kind: p.kind, placeholders: [placeholder] });
      else if (section.kind === 'items' && p.kind === 'items') section.placeholders.push(placeholder);
      else return whole();
    }
  } catch {
    return whole();
  }
  // Keyed by names from the input: no prototype, so a key "__proto__" is an ordinary key.
  const members = Object.create(null) as Record<string, CanonicalText>;
  for (const [key, s] of sections) members[key] = new CanonicalText(s.kind === 'section' ? s.placeholders[0]! : `[${s.placeholders.join(',')}]`);
  const kept = pieces.flatMap((p) => (p.json !== undefined ? [{ digest: p.digest, key: p.key, json: typeof p.json === 'string' ? encoder.encode(p.json) : p.json, canonical: known.get(p.digest)! }] : []));
  const resumable = resumablePartsSha256(slots.parts(members), resume);
  return { digest: resumable.hex, pieces: kept, resumable };
}

/**
 * Whether the manifest's sections `keys` are, piece for piece, the ones `previous` kept: the same
 * digests in the same order (a section neither has counts as unchanged). False when the manifest
 * was not read in pieces or a piece of those sections could not be kept.
 */
export function sectionsUnchanged(manifest: Pick<Manifest, 'pieces'>, previous: readonly ManifestPiece[], keys: readonly string[]): boolean {
  const pieces = manifest.pieces;
  if (pieces === undefined) return false;
  for (const key of keys) {
    const now = pieces.filter((p) => p.key === key);
    const before = previous.filter((p) => p.key === key);
    if (now.length !== before.length || now.some((p, i) => p.json === undefined || p.digest !== before[i]!.digest)) return false;
  }
  return true;
}
