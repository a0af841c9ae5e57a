/**
 * What the declared connectome reads of a catalog (src/connectome/declared.ts labels a tool with
 * its name, title and annotation self-claims, never its description or schemas), as a digest: a
 * catalog edit that keeps it, such as a new tool description, keeps the connectome, so
 * `compile --incremental` takes its files from the previous set instead of building the graph
 * again. test/unit/compile/connectome-inputs.test.ts holds the connectome unchanged across such
 * edits, so a label read from one of the left-out fields fails there, not in a stale set.
 */
import { textDigestHex } from '../../canonical/digest.ts';
import type { Catalog, CatalogServer } from '../../catalog/types.ts';
import { frozenItemsText } from './frozen-inputs.ts';

const serverTexts = new WeakMap<CatalogServer, string>();

/** What the connectome reads of one server, as JSON text. */
function serverText(s: CatalogServer): string {
  return JSON.stringify({ ...s, ...(s.tools ? { tools: s.tools.map(({ description: _d, inputSchema: _i, outputSchema: _o, ...read }) => read) } : {}) });
}

export function connectomeInputsDigest(catalog: Catalog): string {
  return textDigestHex(frozenItemsText(catalog, catalog.servers, serverTexts, serverText));
}
