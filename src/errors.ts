/**
 * One error class for everything toolgate refuses, with a stable code per fault.
 * Only `cli/` maps codes to exit codes; library callers branch on `code`.
 * The Rego engine (src/rego) stands alone with its own RegoError, whose codes are the REGO_* ones here.
 */

/** Stable error codes. Append new codes here; never rename one that has shipped. */
export type ToolgateErrorCode =
  // inputs
  | 'FILE_UNREADABLE'
  | 'PARSE_ERROR'
  | 'SCHEMA_INVALID'
  | 'MANIFEST_INVALID'
  | 'CATALOG_INVALID'
  | 'DANGLING_REFERENCE'
  | 'DUPLICATE_CATALOG_ROW'
  | 'DUPLICATE_ENTRY'
  | 'INPUT_TOO_LARGE'
  | 'STRICT_DRIFT'
  | 'AMBIGUOUS_TOOL'
  | 'CONFIG_INVALID'
  // canonical bytes and digests
  | 'CANONICAL_UNREPRESENTABLE'
  | 'DIGEST_ALGORITHM_UNSUPPORTED'
  // connectome
  | 'GRAPH_INVALID'
  | 'OBSERVATION_INVALID'
  | 'DIFF_REFUSED'
  | 'REACH_REFUSED'
  | 'EXPORT_REFUSED'
  | 'DIGEST_MISMATCH'
  // rego
  | 'REGO_PARSE_ERROR'
  | 'REGO_COMPILE_ERROR'
  | 'REGO_EVAL_ERROR'
  | 'REGO_LIMIT_EXCEEDED'
  | 'REGO_UNSUPPORTED'
  // signs, bundles, engines
  | 'SIGN_VALUE_INVALID'
  | 'ENGINE_UNAVAILABLE'
  | 'BUNDLE_INVALID'
  | 'BUNDLE_VERIFY_FAILED'
  | 'SIGNER_FAILED'
  | 'SIGN_POLICY_REFUSED'
  // crawl / serve
  | 'CRAWL_FAILED'
  // publishing: bundle service, OCI registries, delta bundles, decision logs back
  | 'BUNDLE_SERVE_REFUSED'
  | 'REPORT_INVALID'
  | 'REGISTRY_FAILED'
  | 'PUBLISH_REFUSED'
  | 'CREDENTIALS_INVALID'
  | 'DELTA_REFUSED'
  | 'DECISION_LOG_INVALID'
  // cli
  | 'USAGE'
  | 'OUTPUT_UNWRITABLE'
  /** --out names something toolgate did not write (a file of another kind, a folder of other files): refused, untouched. */
  | 'OUTPUT_NOT_ARTIFACT';

/** Where in an input file a fault sits. Line and column are 1-based. */
export interface SourceAt {
  readonly file: string;
  readonly line?: number;
  readonly col?: number;
  /** A JSON pointer or dotted path inside the document, when known. */
  readonly path?: string;
}

export class ToolgateError extends Error {
  readonly code: ToolgateErrorCode;
  readonly at: readonly SourceAt[];
  /** Every located fault when more than one was collected before throwing. */
  readonly details: readonly string[];

  constructor(
    code: ToolgateErrorCode,
    message: string,
    options: { at?: readonly SourceAt[]; details?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgateError';
    this.code = code;
    this.at = options.at ?? [];
    this.details = options.details ?? [];
  }
}

/** The faults the Rego engine reports with its own error class. */
const ENGINE_FAULTS: ReadonlySet<string> = new Set<ToolgateErrorCode>(['REGO_PARSE_ERROR', 'REGO_COMPILE_ERROR', 'REGO_EVAL_ERROR', 'REGO_LIMIT_EXCEEDED']);

/**
 * A Rego engine error as the rest of toolgate sees it. The engine sits above this file and imports
 * nothing from src/, so its errors are known by their shape: one of its REGO_* codes, with locations.
 */
export interface EngineError extends Error {
  readonly code: 'REGO_PARSE_ERROR' | 'REGO_COMPILE_ERROR' | 'REGO_EVAL_ERROR' | 'REGO_LIMIT_EXCEEDED';
  readonly at: readonly SourceAt[];
  readonly details: readonly string[];
}

function isEngineError(e: unknown): e is EngineError {
  if (!(e instanceof Error)) return false;
  const { code, at, details } = e as Partial<EngineError>;
  return typeof code === 'string' && ENGINE_FAULTS.has(code) && Array.isArray(at) && Array.isArray(details);
}

/** A toolgate refusal, or a Rego engine error: it has the same fields, and its code is one of the REGO_* codes. */
export function isToolgateError(e: unknown): e is ToolgateError {
  return e instanceof ToolgateError || isEngineError(e);
}

/** The Rego engine's error as a ToolgateError with the same code, message and locations (the original is the cause). */
export function toolgateErrorFromRego(e: EngineError): ToolgateError {
  return new ToolgateError(e.code, e.message, { at: e.at, details: e.details, cause: e });
}

/** Formats a location as `file:line:col` (parts omitted when unknown). */
export function formatAt(at: SourceAt): string {
  let s = at.file;
  if (at.line !== undefined) s += `:${at.line}`;
  if (at.col !== undefined) s += `:${at.col}`;
  if (at.path !== undefined && at.path !== '') s += ` (${at.path})`;
  return s;
}

/** Throws a ToolgateError; typed `never` so callers can use it in expressions. */
export function fail(code: ToolgateErrorCode, message: string, options?: ConstructorParameters<typeof ToolgateError>[2]): never {
  throw new ToolgateError(code, message, options);
}
