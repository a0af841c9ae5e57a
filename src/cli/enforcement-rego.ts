/**
 * The enforcement Rego this package ships (rego/toolgate, tests excluded): the modules every
 * compiled bundle carries, which a library caller passes to `compileEstate` as `regoModules` and
 * the query surfaces hand to visible-tools. Read from the installed package (src/ and dist/ sit at
 * the same depth under it, so both find the same files); here because only cli/ reads files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RegoModuleFile } from '../compile/compile.ts';

const regoDir = fileURLToPath(new URL('../../rego/toolgate/', import.meta.url));

/**
 * Every `.rego` under rego/toolgate (gateways/ included) but the `_test.rego` files, sorted by path.
 *
 * @example
 * const result = await compileEstate(estate, { profile: 'strict', createdAt, regoModules: enforcementRego() });
 */
export function enforcementRego(): RegoModuleFile[] {
  return (readdirSync(regoDir, { recursive: true }) as string[])
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith('.rego') && !f.endsWith('_test.rego'))
    .sort()
    .map((f) => ({ path: `toolgate/${f}`, text: readFileSync(join(regoDir, f), 'utf8') }));
}
