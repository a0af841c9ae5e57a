/**
 * JSON Schema (2020-12) validation with ajv, reporting every fault with `file:line:col`.
 * Schemas live in `schemas/`; schema-validators.ts says where their compiled validators come from.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { ToolgateError, formatAt, type ToolgateErrorCode } from '../errors.ts';
import type { ParsedDocument, PathSegment } from './document.ts';
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

/** Validates a parsed document against a schema; throws one error listing every located fault. */
export function validateAgainstSchema(doc: ParsedDocument, schemaName: string, code: ToolgateErrorCode, what: string): void {
  const validate = validatorFor(schemaName);
  if (validate(doc.value)) return;
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
