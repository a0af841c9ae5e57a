/**
 * The trace-review boundary: a Tracegraph `tracegraph.review-candidates` report (schema_version 1),
 * read as immutable evidence and projected to five body-free fields per candidate.
 *
 * The upstream report schema is not in the reference folder (the peer vendors it, but only its
 * README is there). Its v1 shape is derived here from the peer's fixtures and contract tests: an
 * object with `schema_version: 1`, `kind: "tracegraph.review-candidates"` and `candidates`, an
 * array of objects each carrying `run_id` (1-256 non-space characters), `pattern_id` (lowercase
 * kebab-case), `pattern_version` (integer >= 1), `tool_key` (`server::tool`, 4-512 characters) and
 * `artifact_digest` (`sha256:` + 64 lowercase hex), the constraints the peer's
 * review-annotations schema puts on its candidate snapshot. Everything else in the report, at any
 * level, is an additive v1 field: accepted and dropped. Another major version or kind is refused.
 * A duplicated candidate is refused. Error messages name the field, never echo a value.
 *
 * Candidate ids are the peer's (and SyncMill's) exact-tuple UUIDv5: namespace
 * UUIDv5(URL namespace, "https://syncmill.dev/review-items/tracegraph"), name = the compact JSON
 * array [1, "tracegraph.review-candidates", run_id, pattern_id, pattern_version, tool_key,
 * artifact_digest] (UTF-8, no escaping beyond JSON's). This reproduces the peer's fixture id
 * 167379e8-3436-546b-9dbb-5fa087ab0493 (tested).
 *
 * Pure: bytes in, a projection out.
 */
import { credentialShape } from '../governance/credential-shape.ts';
import { createHash } from 'node:crypto';
import { ToolgateError } from '../errors.ts';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { rootAt } from '../parse/source-names.ts';
import { utf8Text } from '../parse/utf8-text.ts';

export const TRACEGRAPH_KIND = 'tracegraph.review-candidates';

export interface ReviewCandidate {
  readonly run_id: string;
  readonly pattern_id: string;
  readonly pattern_version: number;
  readonly tool_key: string;
  readonly artifact_digest: string;
}

export interface ReviewReport {
  /** `sha256:` + hex of the report's exact bytes. */
  readonly source_report_digest: string;
  /** Sorted by the identity tuple, so listing does not depend on the producer's order. */
  readonly candidates: readonly ReviewCandidate[];
}

export const CANDIDATE_FIELDS = ['run_id', 'pattern_id', 'pattern_version', 'tool_key', 'artifact_digest'] as const;
const RULES: Record<(typeof CANDIDATE_FIELDS)[number], [RegExp | null, string]> = {
  run_id: [/^\S{1,256}$/, '1 to 256 characters without whitespace'],
  pattern_id: [/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase kebab-case'],
  pattern_version: [null, 'an integer of at least 1'],
  tool_key: [/^(?=.{4,512}$)\S+::\S+$/, 'a qualified server::tool key of 4 to 512 characters'],
  artifact_digest: [/^sha256:[0-9a-f]{64}$/, '"sha256:" and 64 lowercase hex digits'],
};

export function sha256Tagged(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Checks one candidate-shaped object; returns the five fields only. `where` names it in errors. */
export function projectCandidate(v: unknown, fail: (path: string, why: string) => never, where: string, closed = false): ReviewCandidate {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(where, 'must be an object');
  const o = v as Record<string, unknown>;
  if (closed) for (const k of Object.keys(o)) if (!(CANDIDATE_FIELDS as readonly string[]).includes(k)) fail(`${where}/${k}`, 'is not a field of the candidate snapshot');
  for (const k of CANDIDATE_FIELDS) {
    const [re, what] = RULES[k];
    const x = o[k];
    if (x === undefined) fail(`${where}/${k}`, 'is required');
    const ok = re === null ? typeof x === 'number' && Number.isSafeInteger(x) && x >= 1 : typeof x === 'string' && re.test(x);
    if (!ok) fail(`${where}/${k}`, `must be ${what}`);
  }
  // A run id travels into sidecars and review plans: one that looks like a secret is refused, as everywhere.
  const secret = credentialShape(o.run_id as string);
  if (secret !== undefined) fail(`${where}/run_id`, `is credential-shaped (${secret}); a run id must not carry a secret`);
  return { run_id: o.run_id as string, pattern_id: o.pattern_id as string, pattern_version: o.pattern_version as number, tool_key: o.tool_key as string, artifact_digest: o.artifact_digest as string };
}

function tupleCompare(a: ReviewCandidate, b: ReviewCandidate): number {
  for (const k of CANDIDATE_FIELDS) {
    const x = a[k];
    const y = b[k];
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** Reads a report's exact bytes. Throws PARSE_ERROR or SCHEMA_INVALID naming file and field. */
export function readReviewReport(file: string, bytes: Uint8Array): ReviewReport {
  const fail = (path: string, why: string): never => {
    throw new ToolgateError('SCHEMA_INVALID', `${file}: review-candidate report${path ? ` at ${path}` : ''}: ${why}`, { at: [{ file, path }] });
  };
  const text = utf8Text(bytes, file);
  // The strict reader: a fault at line:col, a repeated key refused rather than the last one kept.
  const v: unknown = parseJsonInput(text, file);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ToolgateError('SCHEMA_INVALID', `${file}: review-candidate report: must be an object`, { at: [rootAt(file, text)] });
  const o = v as Record<string, unknown>;
  if (o.schema_version !== 1) fail('/schema_version', `unsupported schema_version (this reader knows 1)`);
  if (o.kind !== TRACEGRAPH_KIND) fail('/kind', `must be ${JSON.stringify(TRACEGRAPH_KIND)}`);
  const list = o.candidates ?? [];
  if (!Array.isArray(list)) fail('/candidates', 'must be an array');
  const candidates = (list as unknown[]).map((c, i) => projectCandidate(c, fail, `/candidates/${i}`)).sort(tupleCompare);
  const ids = new Set<string>();
  for (const c of candidates) {
    const id = candidateId(c);
    if (ids.has(id)) fail('/candidates', `holds a duplicate candidate (${id})`);
    ids.add(id);
  }
  return { source_report_digest: sha256Tagged(bytes), candidates };
}

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** RFC 9562 UUIDv5: SHA-1 of namespace bytes and name, version and variant bits set. */
export function uuidV5(namespace: string, name: string): string {
  const h = createHash('sha1').update(uuidBytes(namespace)).update(Buffer.from(name, 'utf8')).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
export const CANDIDATE_NAMESPACE = uuidV5(URL_NAMESPACE, 'https://syncmill.dev/review-items/tracegraph');

export function candidateId(c: ReviewCandidate): string {
  return uuidV5(CANDIDATE_NAMESPACE, JSON.stringify([1, TRACEGRAPH_KIND, c.run_id, c.pattern_id, c.pattern_version, c.tool_key, c.artifact_digest]));
}
