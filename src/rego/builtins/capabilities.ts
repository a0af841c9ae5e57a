/**
 * Builtin coverage against the pinned OPA: which builtins of `opa capabilities --current` (vendored,
 * descriptions removed, in opa-capabilities.json; a test checks it against the binary) this engine
 * implements, refuses (network) or lacks, and an OPA capabilities document describing this engine, so
 * that `opa check --capabilities` refuses a policy the engine could not run.
 */
import { createRequire } from 'node:module';
import './index.ts';
import { builtinNames, lookupBuiltin } from './registry.ts';
import { NETWORK_BUILTINS, REFUSED_REASONS } from './refused.ts';

interface OpaBuiltin {
  readonly name: string;
  readonly decl?: unknown;
  readonly [k: string]: unknown;
}

export interface OpaCapabilities {
  readonly builtins: readonly OpaBuiltin[];
  readonly future_keywords?: readonly string[];
  readonly features?: readonly string[];
  readonly [k: string]: unknown;
}

interface Vendored extends OpaCapabilities {
  readonly opa_version: string;
}

let vendored: Vendored | undefined;

/**
 * The pinned OPA's capabilities (vendored copy), loaded as a JSON module as the schemas are: the
 * engine reads no file itself, and the build copies the JSON beside the compiled code.
 */
export function pinnedOpaCapabilities(): Vendored {
  vendored ??= createRequire(import.meta.url)('./opa-capabilities.json') as Vendored;
  return vendored;
}

/**
 * OPA builtins the compiler handles as language rather than as registered functions: `=` and `:=`
 * are unification and assignment, and `print` calls are what OPA rewrites into `internal.print`.
 */
const LANGUAGE: ReadonlyMap<string, string> = new Map([
  ['eq', 'the = operator (unification)'],
  ['assign', 'the := operator'],
  ['internal.print', 'print calls'],
]);

export type CoverageStatus = 'implemented' | 'refused' | 'missing';

export interface CoverageEntry {
  readonly name: string;
  readonly status: CoverageStatus;
  /** For refused builtins and for missing ones registered only to refuse them. */
  readonly note?: string;
}

export interface Coverage {
  readonly opa_version: string;
  readonly counts: Readonly<Record<CoverageStatus, number>> & { readonly total: number };
  readonly builtins: readonly CoverageEntry[];
  /** Builtins of this engine that the pinned OPA does not have. */
  readonly extra: readonly string[];
}

function statusOf(name: string): CoverageEntry {
  const lang = LANGUAGE.get(name);
  if (lang !== undefined) return { name, status: 'implemented', note: lang };
  const reason = REFUSED_REASONS.get(name);
  if (NETWORK_BUILTINS.has(name)) return { name, status: 'refused', note: `${reason ?? 'no network access'}; mock it with \`with\`` };
  if (reason !== undefined) return { name, status: 'missing', note: `registered to refuse: ${reason}` };
  if (lookupBuiltin(name) !== undefined) return { name, status: 'implemented' };
  return { name, status: 'missing' };
}

export function builtinCoverage(caps: OpaCapabilities = pinnedOpaCapabilities()): Coverage {
  const builtins = caps.builtins.map((b) => statusOf(b.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const counts = { implemented: 0, refused: 0, missing: 0, total: builtins.length };
  for (const b of builtins) counts[b.status]++;
  const known = new Set(caps.builtins.map((b) => b.name));
  const extra = builtinNames().filter((n) => !known.has(n) && n !== 'print');
  return { opa_version: typeof caps.opa_version === 'string' ? caps.opa_version : 'unknown', counts, builtins, extra };
}

/**
 * An OPA capabilities document for this engine: the pinned OPA's language features and keywords, and
 * its builtins less those this engine lacks (refused network builtins stay: they compile, and `with`
 * can mock them).
 */
export function engineCapabilities(caps: OpaCapabilities = pinnedOpaCapabilities()): OpaCapabilities {
  const keep = caps.builtins.filter((b) => statusOf(b.name).status !== 'missing');
  return {
    builtins: keep,
    ...(caps.future_keywords ? { future_keywords: caps.future_keywords } : {}),
    ...(caps.features ? { features: caps.features } : {}),
  };
}
