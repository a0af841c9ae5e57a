/** Estates for library tests: the bundled examples, or one built from inline governance and catalog. */
import { readFileSync } from 'node:fs';
import { parseCatalog } from '../../src/catalog/parse.ts';
import { buildEstate, type Estate } from '../../src/governance/estate.ts';
import { parseManifest } from '../../src/manifest/parse.ts';

export function exampleEstate(name: 'quickstart' | 'fleet'): Estate {
  const dir = new URL(`../../examples/${name}/`, import.meta.url);
  const m = parseManifest(`${name}/governance.yaml`, readFileSync(new URL('governance.yaml', dir), 'utf8'));
  const c = parseCatalog(`${name}/catalog.json`, readFileSync(new URL('catalog.json', dir), 'utf8'));
  return buildEstate(m, c);
}

export function inlineEstate(governance: string, catalog: object): Estate {
  return buildEstate(parseManifest('g.yaml', governance), parseCatalog('c.json', JSON.stringify(catalog)));
}
