/**
 * Where the JSON Schema validators come from. Compiling the schemas with ajv costs far more than
 * everything else a short command does (hundreds of ms), so the build generates them ahead of time
 * with ajv's standalone code (dist/parse/schema-validators.cjs) and a run only loads that file.
 * Running from src/ (tests, the dev entry) there is no such file and ajv compiles on first use.
 * ajv is CommonJS and loaded through `require`, so neither path loads it before a schema is needed.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const schemaDir = fileURLToPath(new URL('../../schemas/', import.meta.url));
/** The generated module, beside the compiled form of this one. */
export const PRECOMPILED_FILE = 'schema-validators.cjs';

/** An ajv holding every schema in `dir` under its file name (compiled on first use), so `$ref`s between them resolve. */
function newAjv(options: { source: boolean }, dir = schemaDir): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = (require('ajv-formats') as { default: (a: Ajv2020) => void }).default;
  const ajv = new Ajv({ allErrors: true, strict: true, strictTuples: false, allowUnionTypes: true, code: { source: options.source } });
  addFormats(ajv);
  for (const name of schemaNames(dir)) ajv.addSchema(JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as object, name);
  return ajv;
}

const schemaNames = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.schema.json')).sort();

function compileFrom(ajv: Ajv2020, name: string): ValidateFunction {
  const v = ajv.getSchema(name);
  if (!v) throw new Error(`no schema ${name} in ${schemaDir}`);
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
 * CommonJS source exporting one validator per schema file in `dir` (a path ending in `/`), keyed by
 * file name: what the build writes to PRECOMPILED_FILE.
 */
export function standaloneValidatorsSource(dir = schemaDir): string {
  const standaloneCode = (require('ajv/dist/standalone/index.js') as { default: (ajv: Ajv2020, refs: Record<string, string>) => string }).default;
  return standaloneCode(newAjv({ source: true }, dir), Object.fromEntries(schemaNames(dir).map((n) => [n, n])));
}
