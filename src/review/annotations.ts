/**
 * The review sidecar (the peer's `toolgraph.review-annotations` schema_version 1): append-only,
 * human-authored dispositions (`open`, `accepted`, `dismissed`) bound to the SHA-256 of one
 * report's exact bytes. The report is never edited. Events are numbered 1, 2, ... without gaps;
 * each names the disposition it moves from, which must be the candidate's current one (every
 * candidate starts `open`); the last event is current. The sidecar is a closed contract: an
 * unknown field anywhere is refused, so nothing of the producer's can ride along.
 *
 * Pure: values in, values out. The locked, durable write is in cli/review-store.ts.
 */
import { rfc3339Ms } from '../parse/rfc3339.ts';
import { ToolgateError } from '../errors.ts';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { credentialShape } from '../governance/credential-shape.ts';
import { candidateId, projectCandidate, TRACEGRAPH_KIND, type ReviewCandidate, type ReviewReport } from './tracegraph-report.ts';

export const ANNOTATIONS_KIND = 'toolgraph.review-annotations';
export const LIST_KIND = 'toolgraph.review-candidate-list';
/** Where a report's sidecar is by default: `<REPORT>` + this. */
export const SIDECAR_SUFFIX = '.toolgraph-review.json';
export const DISPOSITIONS = ['open', 'accepted', 'dismissed'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

export interface AnnotationEvent {
  readonly sequence: number;
  readonly candidate_id: string;
  readonly candidate: ReviewCandidate;
  readonly from_disposition: Disposition;
  readonly disposition: Disposition;
  readonly reviewer: string;
  readonly recorded_at: string;
  readonly note: string | null;
}

export interface Annotations {
  readonly schema_version: 1;
  readonly kind: typeof ANNOTATIONS_KIND;
  readonly source: { readonly schema_version: 1; readonly kind: typeof TRACEGRAPH_KIND; readonly source_report_digest: string };
  readonly events: readonly AnnotationEvent[];
}

export interface CandidateView extends ReviewCandidate {
  readonly candidate_id: string;
  readonly disposition: Disposition;
  readonly history: readonly Omit<AnnotationEvent, 'candidate_id' | 'candidate'>[];
}

export interface CandidateList {
  readonly schema_version: 1;
  readonly kind: typeof LIST_KIND;
  readonly source_report_digest: string;
  readonly candidates: readonly CandidateView[];
}

export function emptyAnnotations(report: ReviewReport): Annotations {
  return { schema_version: 1, kind: ANNOTATIONS_KIND, source: { schema_version: 1, kind: TRACEGRAPH_KIND, source_report_digest: report.source_report_digest }, events: [] };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|\+00:00)$/;
const LINE = /^[^\r\n\u0000]+$/;

function closed(o: Record<string, unknown>, allowed: readonly string[], where: string, fail: (p: string, w: string) => never): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(`${where}/${k}`, 'is not a field of the sidecar contract');
  for (const k of allowed) if (!(k in o) && k !== 'note') fail(`${where}/${k}`, 'is required');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses a sidecar and checks its binding to `report` and its event chain. */
export function readAnnotations(file: string, text: string, report: ReviewReport): Annotations {
  const fail = (path: string, why: string): never => {
    throw new ToolgateError('SCHEMA_INVALID', `${file}: review annotations${path ? ` at ${path}` : ''}: ${why}`, { at: [{ file, path }] });
  };
  // The strict reader: a fault at line:col, a repeated key refused rather than the last one kept.
  const v: unknown = parseJsonInput(text, file);
  if (!isObject(v)) return fail('', 'must be an object');
  closed(v, ['schema_version', 'kind', 'source', 'events'], '', fail);
  if (v.schema_version !== 1) fail('/schema_version', 'unsupported schema_version (this reader knows 1)');
  if (v.kind !== ANNOTATIONS_KIND) fail('/kind', `must be ${JSON.stringify(ANNOTATIONS_KIND)}`);
  const src = v.source;
  if (!isObject(src)) return fail('/source', 'must be an object');
  closed(src, ['schema_version', 'kind', 'source_report_digest'], '/source', fail);
  if (src.schema_version !== 1 || src.kind !== TRACEGRAPH_KIND) fail('/source', `must name ${TRACEGRAPH_KIND} schema_version 1`);
  if (typeof src.source_report_digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(src.source_report_digest)) fail('/source/source_report_digest', 'must be "sha256:" and 64 lowercase hex digits');
  if (src.source_report_digest !== report.source_report_digest) {
    throw new ToolgateError('DIGEST_MISMATCH', `${file}: review annotations are bound to report ${src.source_report_digest as string}, not to this report (${report.source_report_digest}); the report changed or the sidecar belongs to another`, { at: [{ file, path: '/source/source_report_digest' }] });
  }
  if (!Array.isArray(v.events)) return fail('/events', 'must be an array');
  const events = v.events.map((e, i): AnnotationEvent => {
    const at = `/events/${i}`;
    if (!isObject(e)) return fail(at, 'must be an object');
    closed(e, ['sequence', 'candidate_id', 'candidate', 'from_disposition', 'disposition', 'reviewer', 'recorded_at', 'note'], at, fail);
    if (!Number.isSafeInteger(e.sequence) || (e.sequence as number) < 1) fail(`${at}/sequence`, 'must be an integer of at least 1');
    if (typeof e.candidate_id !== 'string' || !UUID.test(e.candidate_id)) fail(`${at}/candidate_id`, 'must be a lowercase UUID');
    const candidate = projectCandidate(e.candidate, fail, `${at}/candidate`, true);
    for (const k of ['from_disposition', 'disposition'] as const) if (!(DISPOSITIONS as readonly unknown[]).includes(e[k])) fail(`${at}/${k}`, `must be one of ${DISPOSITIONS.join(', ')}`);
    if (typeof e.reviewer !== 'string' || e.reviewer.length > 256 || !LINE.test(e.reviewer)) fail(`${at}/reviewer`, 'must be one line of 1 to 256 characters');
    if (typeof e.recorded_at !== 'string' || !UTC.test(e.recorded_at) || rfc3339Ms(e.recorded_at) === undefined) fail(`${at}/recorded_at`, 'must be an RFC 3339 UTC timestamp');
    const note = e.note ?? null;
    if (note !== null && (typeof note !== 'string' || note.length > 500 || !LINE.test(note))) fail(`${at}/note`, 'must be null or one line of 1 to 500 characters');
    return { sequence: e.sequence as number, candidate_id: e.candidate_id as string, candidate, from_disposition: e.from_disposition as Disposition, disposition: e.disposition as Disposition, reviewer: e.reviewer as string, recorded_at: e.recorded_at as string, note: note as string | null };
  });
  const a: Annotations = { schema_version: 1, kind: ANNOTATIONS_KIND, source: { schema_version: 1, kind: TRACEGRAPH_KIND, source_report_digest: report.source_report_digest }, events };
  replay(a, report, fail);
  return a;
}

/** Current disposition and history per candidate id; throws when the chain is broken. */
export function replay(a: Annotations, report: ReviewReport, fail: (p: string, w: string) => never): { states: Map<string, Disposition>; histories: Map<string, AnnotationEvent[]> } {
  const byId = new Map(report.candidates.map((c) => [candidateId(c), c]));
  const states = new Map<string, Disposition>([...byId.keys()].map((id) => [id, 'open']));
  const histories = new Map<string, AnnotationEvent[]>([...byId.keys()].map((id) => [id, []]));
  a.events.forEach((e, i) => {
    const at = `/events/${i}`;
    if (e.sequence !== i + 1) fail(`${at}/sequence`, `is ${e.sequence}, expected ${i + 1}: the event sequence has a gap or is out of order`);
    const c = byId.get(e.candidate_id);
    if (c === undefined) fail(`${at}/candidate_id`, 'names no candidate of this report');
    if (candidateId(e.candidate) !== e.candidate_id || JSON.stringify(e.candidate) !== JSON.stringify(c)) fail(`${at}/candidate`, 'does not match the report candidate its id names');
    if (e.from_disposition !== states.get(e.candidate_id)) fail(`${at}/from_disposition`, `is ${e.from_disposition}, but the candidate is ${states.get(e.candidate_id)} at this point: the disposition chain is broken`);
    states.set(e.candidate_id, e.disposition);
    histories.get(e.candidate_id)!.push(e);
  });
  return { states, histories };
}

function chainFail(path: string, why: string): never {
  throw new ToolgateError('SCHEMA_INVALID', `review annotations${path ? ` at ${path}` : ''}: ${why}`);
}

function view(c: ReviewCandidate, id: string, disposition: Disposition, history: readonly AnnotationEvent[]): CandidateView {
  return {
    candidate_id: id,
    ...c,
    disposition,
    history: history.map((e) => ({ sequence: e.sequence, from_disposition: e.from_disposition, disposition: e.disposition, reviewer: e.reviewer, recorded_at: e.recorded_at, note: e.note })),
  };
}

/** Every candidate (or those with `status`), in tuple order, with its current disposition and history. */
export function listCandidates(report: ReviewReport, a: Annotations, status?: Disposition): CandidateList {
  const { states, histories } = replay(a, report, chainFail);
  const candidates = report.candidates
    .map((c) => {
      const id = candidateId(c);
      return view(c, id, states.get(id)!, histories.get(id)!);
    })
    .filter((v) => status === undefined || v.disposition === status);
  return { schema_version: 1, kind: LIST_KIND, source_report_digest: report.source_report_digest, candidates };
}

/** A reviewer name: trimmed, one line, 1-256 characters, not credential-shaped. Throws USAGE. */
export function normaliseReviewer(s: string): string {
  const r = s.trim();
  if (r.length === 0 || r.length > 256 || !LINE.test(r)) throw new ToolgateError('USAGE', '--reviewer must be one line of 1 to 256 characters');
  const kind = credentialShape(r);
  if (kind !== undefined) throw new ToolgateError('USAGE', `--reviewer is credential-shaped (${kind}); name the reviewer, not a secret`);
  return r;
}

/** A review note: trimmed, one line, 1-500 characters; it may cite paths, never a credential. Throws USAGE. */
export function normaliseNote(s: string | undefined): string | null {
  if (s === undefined) return null;
  const n = s.trim();
  if (n.length === 0 || n.length > 500 || !LINE.test(n)) throw new ToolgateError('USAGE', '--note must be one line of 1 to 500 characters');
  const kind = credentialShape(n);
  if (kind !== undefined) throw new ToolgateError('USAGE', `--note is credential-shaped (${kind}); the note was not recorded`);
  return n;
}

/** The sidecar with one more event for `id`; throws SCHEMA_INVALID for an id the report does not hold. */
export function appendEvent(report: ReviewReport, a: Annotations, id: string, change: { disposition: Disposition; reviewer: string; note: string | null; recordedAt: string }): { annotations: Annotations; view: CandidateView } {
  const { states, histories } = replay(a, report, chainFail);
  const c = report.candidates.find((x) => candidateId(x) === id);
  if (c === undefined) throw new ToolgateError('SCHEMA_INVALID', `candidate ${JSON.stringify(id)} is not in this report (see review-candidates list)`);
  const event: AnnotationEvent = { sequence: a.events.length + 1, candidate_id: id, candidate: c, from_disposition: states.get(id)!, disposition: change.disposition, reviewer: change.reviewer, recorded_at: change.recordedAt, note: change.note };
  return { annotations: { ...a, events: [...a.events, event] }, view: view(c, id, event.disposition, [...histories.get(id)!, event]) };
}
