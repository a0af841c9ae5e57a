/**
 * Where a command's estate comes from, in order: `--manifest M --catalog C`; `--example NAME`
 * (the bundled examples/NAME/{governance.yaml,catalog.json}); or a `toolgate.yaml` in the working
 * directory naming both files (`toolgate init` writes one). Diagnostics go to stderr.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolgateError, formatAt } from '../errors.ts';
import { parseCatalog } from '../catalog/parse.ts';
import type { Catalog } from '../catalog/types.ts';
import { parseManifest } from '../manifest/parse.ts';
import type { Manifest } from '../manifest/types.ts';
import { buildEstate, type Estate } from '../governance/estate.ts';
import { strictFindings, type StrictFinding } from '../governance/strict-rules.ts';
import { parseText } from '../parse/document.ts';
import { validateAgainstSchema } from '../parse/schema.ts';
import type { PieceCache } from '../parse/yaml-pieces.ts';
import type { CliIo } from './command.ts';
import type { InputMemo } from './watch-memo.ts';
import { readTextFile } from './fs-io.ts';
import type { OptionSpec } from './args.ts';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const EXAMPLES_DIR = join(PACKAGE_ROOT, 'examples');
export const CONFIG_FILE = 'toolgate.yaml';

export const ESTATE_OPTIONS = {
  manifest: { type: 'string' },
  catalog: { type: 'string' },
  example: { type: 'string' },
  'strict-drift': { type: 'boolean' },
  strict: { type: 'boolean' },
} as const satisfies OptionSpec;

export const ESTATE_USAGE = `estate: --manifest governance.yaml --catalog catalog.json | --example NAME | a ${CONFIG_FILE} in the working directory
  --strict-drift   refuse governance that names a tool no server exposes (exit 1)
  --strict         refuse what the peer's ingest refuses (exit 1): expected exceptions that can never
                   classify a row, grants to tools never crawled (also strict: true in ${CONFIG_FILE})`;

export interface EstateSource {
  readonly manifestPath: string;
  readonly catalogPath: string;
  readonly config?: Record<string, unknown>;
  /** Refuse strict-rule findings (`--strict`, or `strict: true` in toolgate.yaml). */
  readonly strict?: boolean;
}

export interface EstateArgs {
  readonly manifest?: string | undefined;
  readonly catalog?: string | undefined;
  readonly example?: string | undefined;
  readonly strict?: boolean | undefined;
}

export function locateEstate(args: EstateArgs, io: CliIo): EstateSource {
  if (args.example !== undefined) {
    if (args.manifest !== undefined || args.catalog !== undefined) throw new ToolgateError('USAGE', '--example cannot be combined with --manifest/--catalog');
    if (!/^[a-z0-9][a-z0-9-]*$/.test(args.example) || !existsSync(join(EXAMPLES_DIR, args.example))) {
      throw new ToolgateError('USAGE', `unknown example ${JSON.stringify(args.example)}; bundled examples live in ${EXAMPLES_DIR}`);
    }
    const dir = join(EXAMPLES_DIR, args.example);
    return { manifestPath: join(dir, 'governance.yaml'), catalogPath: join(dir, 'catalog.json'), strict: args.strict === true };
  }
  if (args.manifest !== undefined || args.catalog !== undefined) {
    if (args.manifest === undefined || args.catalog === undefined) throw new ToolgateError('USAGE', '--manifest and --catalog must be given together');
    return { manifestPath: resolve(io.cwd, args.manifest), catalogPath: resolve(io.cwd, args.catalog), strict: args.strict === true };
  }
  const configPath = join(io.cwd, CONFIG_FILE);
  if (!existsSync(configPath)) {
    throw new ToolgateError('USAGE', `no estate given: pass --manifest and --catalog, --example NAME, or run 'toolgate init' to write ${CONFIG_FILE} here`);
  }
  const doc = parseText(configPath, readTextFile(configPath), 'yaml');
  validateAgainstSchema(doc, 'toolgate-config.schema.json', 'CONFIG_INVALID', CONFIG_FILE);
  const config = doc.value as { manifest: string; catalog: string };
  const base = dirname(configPath);
  const at = (p: string) => (isAbsolute(p) ? p : join(base, p));
  return { manifestPath: at(config.manifest), catalogPath: at(config.catalog), config: doc.value as Record<string, unknown>, strict: args.strict === true || (doc.value as { strict?: unknown }).strict === true };
}

function refuse(source: EstateSource, findings: readonly StrictFinding[], why: string): never {
  const details = findings.map((f) => `${formatAt(f.at)}: [${f.rule}] ${f.message}`);
  throw new ToolgateError('MANIFEST_INVALID', `${source.manifestPath}: ${why}:\n  ${details.join('\n  ')}`, { at: findings.map((f) => f.at), details });
}

/**
 * Reads, validates and indexes the estate. Credential-shaped identities are always refused.
 * Under `strict` (the option, or `strict: true` in toolgate.yaml) any strict-rule finding refuses
 * the manifest; otherwise DRIFT notices and the exception findings are printed to stderr, each
 * naming its rule (a grant never crawled is already a DRIFT notice). `manifestPieces`: the YAML
 * pieces a previous compile kept, so only the changed ones are parsed (src/parse/yaml-pieces.ts).
 * `inputs`: what a watch kept of the files, so one whose text did not change is not parsed again,
 * and the estate it indexed last, whose grant indexes it starts from.
 */
export function loadEstate(source: EstateSource, io: CliIo, options: { strictDrift?: boolean; strict?: boolean; manifestPieces?: PieceCache; inputs?: InputMemo } = {}): Estate {
  const parsed = <T>(path: string, parse: (text: string, previous?: { readonly text: string; readonly value: T }) => T, freeze = false): T =>
    options.inputs ? options.inputs.parsed(path, readTextFile(path), parse, { freeze }) : parse(readTextFile(path));
  // A watch's previous read of the manifest says how its text was cut, so a save cuts again only what changed.
  const previousPlan = (options.inputs?.previous(source.manifestPath) as Manifest | undefined)?.piecePlan;
  const pieces = options.manifestPieces ? { pieces: options.manifestPieces, ...(previousPlan ? { previousPlan } : {}) } : {};
  const manifest = parsed(source.manifestPath, (text) => parseManifest(source.manifestPath, text, pieces));
  // Frozen: the compile keys its per-tool caches by the catalog's objects. A save reads again only the member it changed.
  const catalog = parsed<Catalog>(source.catalogPath, (text, previous) => parseCatalog(source.catalogPath, text, previous ? { previousJson: previous } : {}), true);
  const previous = options.inputs?.estate;
  const estate = buildEstate(manifest, catalog, { strictDrift: options.strictDrift ?? false, ...(previous ? { previous } : {}) });
  const findings = strictFindings(estate);
  const identities = findings.filter((f) => f.rule === 'credential-shaped-identity');
  if (identities.length > 0) refuse(source, identities, 'credential-shaped identities are refused');
  const strict = options.strict === true || source.strict === true || source.config?.strict === true;
  if (strict && findings.length > 0) refuse(source, findings, `refused under --strict (${findings.length} finding${findings.length === 1 ? '' : 's'})`);
  for (const n of estate.notices) io.stderr(`toolgate: ${n.kind === 'DRIFT' ? 'DRIFT' : 'warning'}: ${formatAt(n.at)}: ${n.message}\n`);
  for (const f of findings) if (f.rule !== 'grant-never-crawled') io.stderr(`toolgate: warning: [${f.rule}] ${formatAt(f.at)}: ${f.message}\n`);
  if (options.inputs) options.inputs.estate = estate;
  return estate;
}

export function estateFromArgs(values: EstateArgs & { 'strict-drift'?: boolean | undefined; strict?: boolean | undefined }, io: CliIo): Estate {
  return loadEstate(locateEstate(values, io), io, { strictDrift: values['strict-drift'] ?? false });
}
