/**
 * Where the JSON Schema validators come from. Compiling the schemas with ajv costs far more than
 * everything else a short command does (hundreds of ms), so the build generates them ahead of time
 * with ajv's standalone code (dist/parse/schema-validators.cjs) and a run only loads that file.
 * Running from src/ (tests, the dev entry) there is no such file and ajv compiles on first use.
 * ajv is CommonJS and loaded through `require`, so neither path loads it before a schema is needed.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The files of `schemas/`, loaded as JSON modules (so this module reads no file itself; only cli/
 * touches the file system). A test holds this list equal to the folder.
 */
export const SCHEMA_FILES = [
  'catalog.schema.json',
  'connectome.schema.json',
  'governance.schema.json',
  'host-graph.schema.json',
  'registry-server.schema.json',
  'servers.schema.json',
  'toolgate-config.schema.json',
] as const;
/** The generated module, beside the compiled form of this one. */
export const PRECOMPILED_FILE = 'schema-validators.cjs';

/** Each file of SCHEMA_FILES, by name. */
export type SchemaDocuments = Readonly<Record<(typeof SCHEMA_FILES)[number], object>>;

const loadedSchemas = (): SchemaDocuments =>
  Object.fromEntries(SCHEMA_FILES.map((name) => [name, require(`../../schemas/${name}`) as object])) as SchemaDocuments;

/** An ajv holding every schema under its file name (compiled on first use), so `$ref`s between them resolve. */
function newAjv(options: { source: boolean }, schemas: SchemaDocuments = loadedSchemas()): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = (require('ajv-formats') as { default: (a: Ajv2020) => void }).default;
  const ajv = new Ajv({ allErrors: true, strict: true, strictTuples: false, allowUnionTypes: true, code: { source: options.source } });
  addFormats(ajv);
  for (const name of SCHEMA_FILES) ajv.addSchema(schemas[name], name);
  return ajv;
}

function compileFrom(ajv: Ajv2020, name: string): ValidateFunction {
  const v = ajv.getSchema(name);
  if (!v) throw new Error(`no schema ${name} in schemas/`);
  return v;
}

let precompiled: Readonly<Record<string, ValidateFunction>> | null | undefined;
let runtime: Ajv2020 | undefined;

function precompiledValidators(): Readonly<Record<string, ValidateFunction>> | null {
  if (precompiled === undefined) {
    try {
      precompiled = require(`./${PRECOMPILED_FILE}`) as Record<string, ValidateFunction>;
    } catch (e) {
      if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') throw e;
      precompiled = null;
    }
  }
  return precompiled;
}

/** The validator for `schemas/<name>` (e.g. `catalog.schema.json`): generated at build time, or compiled once per process. */
export function validatorFor(name: string): ValidateFunction {
  const ahead = precompiledValidators()?.[name];
  if (ahead) return ahead;
  runtime ??= newAjv({ source: false });
  return compileFrom(runtime, name);
}

/** The validator compiled by ajv at run time, never the generated one: for checking that the two agree. */
export function runtimeValidatorFor(name: string): ValidateFunction {
  return compileFrom(newAjv({ source: false }), name);
}

/**
 * CommonJS source exporting one validator per schema file, keyed by file name: what the build
 * writes to PRECOMPILED_FILE. The build passes the schemas it read (its staged copy of this
 * module has no schemas/ beside it).
 */
export function standaloneValidatorsSource(schemas?: SchemaDocuments): string {
  const standaloneCode = (require('ajv/dist/standalone/index.js') as { default: (ajv: Ajv2020, refs: Record<string, string>) => string }).default;
  return standaloneCode(newAjv({ source: true }, schemas), Object.fromEntries(SCHEMA_FILES.map((n) => [n, n])));
}
