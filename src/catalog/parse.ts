/**
 * Catalog text (JSON or YAML) -> validated Catalog. A duplicated row (server, or a tool, resource,
 * template or prompt within one server) fails here: a bundle must never have to choose between rows.
 */
import { ToolgateError, formatAt, type SourceAt } from '../errors.ts';
import { parseText, type ParsedDocument, type ParseOptions } from '../parse/document.ts';
import { validateAgainstSchema } from '../parse/schema.ts';
import type { Catalog } from './types.ts';

/** `options.previousJson`: the catalog's previous text and the Catalog read from it, so a JSON catalog reads again only the member an edit falls in. */
export function parseCatalog(file: string, text: string, options: ParseOptions = {}): Catalog {
  const doc = parseText(file, text, undefined, options);
  return catalogFromDocument(doc);
}

export function catalogFromDocument(doc: ParsedDocument): Catalog {
  validateAgainstSchema(doc, 'catalog.schema.json', 'CATALOG_INVALID', 'catalog');
  const catalog = doc.value as Catalog;
  const dups: { at: SourceAt; text: string }[] = [];
  const servers = new Map<string, number>();
  catalog.servers.forEach((s, si) => {
    const prev = servers.get(s.name);
    if (prev !== undefined) dups.push({ at: doc.locate(['servers', si, 'name']), text: `server ${JSON.stringify(s.name)} is listed twice (first at index ${prev})` });
    else servers.set(s.name, si);
    const lists = [
      ['tools', s.tools, (x: { name: string }) => x.name],
      ['resources', s.resources, (x: { uri: string }) => x.uri],
      ['resourceTemplates', s.resourceTemplates, (x: { uriTemplate: string }) => x.uriTemplate],
      ['prompts', s.prompts, (x: { name: string }) => x.name],
    ] as const;
    for (const [key, items, idOf] of lists) {
      const seen = new Map<string, number>();
      (items as readonly unknown[] | undefined)?.forEach((item, i) => {
        const id = (idOf as (x: unknown) => string)(item);
        const p = seen.get(id);
        if (p !== undefined) {
          dups.push({ at: doc.locate(['servers', si, key, i]), text: `${key} row ${JSON.stringify(id)} of server ${JSON.stringify(s.name)} is duplicated (first at index ${p})` });
        } else seen.set(id, i);
      });
    }
  });
  if (dups.length > 0) {
    throw new ToolgateError('DUPLICATE_CATALOG_ROW', dups[0]!.text, {
      at: [dups[0]!.at],
      details: dups.length > 1 ? dups.map((d) => `${formatAt(d.at)}: ${d.text}`) : [],
    });
  }
  return catalog;
}
