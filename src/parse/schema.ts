/**
 * JSON Schema (2020-12) validation with ajv, reporting every fault with `file:line:col`.
 * Schemas live in `schemas/`; schema-validators.ts says where their compiled validators come from.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { ToolgateError, formatAt, type ToolgateErrorCode } from '../errors.ts';
import type { ParsedDocument, PathSegment } from './document.ts';
import type { YamlPiece } from './yaml-pieces.ts';
import { validatorFor } from './schema-validators.ts';

export { validatorFor };

function pathOf(instancePath: string): PathSegment[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describe(err: ErrorObject): { path: PathSegment[]; text: string; key?: boolean } {
  const path = pathOf(err.instancePath);
  switch (err.keyword) {
    case 'additionalProperties': {
      const key = (err.params as { additionalProperty: string }).additionalProperty;
      return { path: [...path, key], text: `unknown key ${JSON.stringify(key)}`, key: true };
    }
    case 'required':
      return { path, text: `missing required key ${JSON.stringify((err.params as { missingProperty: string }).missingProperty)}` };
    case 'enum':
      return { path, text: `must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path, text: `must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}` };
    default:
      return { path, text: err.message ?? err.keyword };
  }
}

/**
 * The top-level sequences of a schema that constrain nothing but their items (no minItems,
 * uniqueItems, contains): a document is valid when everything else in it is and each of their
 * items is, wherever it stands. test/unit/parse/schema-pieces.test.ts holds this against the schemas.
 */
export const ITEMS_ONLY_SEQUENCES: Readonly<Record<string, readonly string[]>> = {
  'governance.schema.json': ['agents', 'policies', 'grants', 'data_access', 'expected_exceptions'],
};

/**
 * Runs of items (YAML pieces, by value) that were part of a document found valid, per schema and
 * sequence: the same text under another key is the same value, and there says nothing.
 */
const validRuns = new Map<string, Map<string, WeakSet<object>>>();

/** The runs known valid in each of `sequences` of `schemaName`. */
function knownRuns(schemaName: string, sequences: readonly string[]): Map<string, WeakSet<object>> {
  let known = validRuns.get(schemaName);
  if (known === undefined) validRuns.set(schemaName, (known = new Map(sequences.map((k) => [k, new WeakSet<object>()]))));
  return known;
}

/**
 * The document with the items of the runs a valid document held before left out of those
 * sequences: valid exactly when the whole document is (ITEMS_ONLY_SEQUENCES). Undefined when the
 * document leaves nothing out.
 */
function withoutKnownRuns(doc: ParsedDocument, pieces: readonly YamlPiece[], known: ReadonlyMap<string, WeakSet<object>>): unknown {
  if (doc.value === null || typeof doc.value !== 'object') return undefined;
  const kept = new Map<string, unknown[]>();
  let left = 0;
  for (const p of pieces) {
    const valid = known.get(p.key);
    if (p.kind !== 'items' || valid === undefined || !Array.isArray(p.value)) continue;
    let items = kept.get(p.key);
    if (items === undefined) kept.set(p.key, (items = []));
    if (valid.has(p.value)) left++;
    else for (const item of p.value) items.push(item);
  }
  return left === 0 ? undefined : { ...(doc.value as Record<string, unknown>), ...Object.fromEntries(kept) };
}

/**
 * Validates a parsed document against a schema; throws one error listing every located fault. A
 * document read in pieces is validated without the runs of items a valid document held before (a
 * recompile validates what the save changed); when that fails, the whole document is validated
 * again, so every fault is reported at its own place.
 */
export function validateAgainstSchema(doc: ParsedDocument, schemaName: string, code: ToolgateErrorCode, what: string): void {
  const validate = validatorFor(schemaName);
  const sequences = ITEMS_ONLY_SEQUENCES[schemaName];
  const pieces = doc.pieces;
  const known = sequences !== undefined && pieces !== undefined ? knownRuns(schemaName, sequences) : undefined;
  const reduced = known !== undefined && pieces !== undefined ? withoutKnownRuns(doc, pieces, known) : undefined;
  if (validate(reduced ?? doc.value) || (reduced !== undefined && validate(doc.value))) {
    if (known !== undefined && pieces !== undefined) for (const p of pieces) if (p.kind === 'items' && Array.isArray(p.value)) known.get(p.key)?.add(p.value);
    return;
  }
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const all = errors.length > 0 ? errors : (validate.errors ?? []);
  const seen = new Set<string>();
  const faults: { at: ReturnType<ParsedDocument['locate']>; text: string }[] = [];
  for (const err of all) {
    const d = describe(err);
    const at = doc.locate(d.path, d.key ? 'key' : 'value');
    const line = `${formatAt(at)}: ${d.text}`;
    if (seen.has(line)) continue;
    seen.add(line);
    faults.push({ at, text: d.text });
  }
  const first = faults[0]!;
  throw new ToolgateError(code, `invalid ${what}: ${first.text}${faults.length > 1 ? ` (and ${faults.length - 1} more)` : ''}`, {
    at: [first.at],
    details: faults.length > 1 ? faults.map((f) => `${formatAt(f.at)}: ${f.text}`) : [],
  });
}
