/**
 * The data document's derived members as canonical text, reused from the previous compile when what
 * they read did not change. `signs_by_tool` and `tools_by_name` read the exposed tools' keys and
 * the connectome's edges. `resources`, `resource_templates`, `prompts` and `prompts_by_name` read
 * the catalog's server and tool names (which bare targets are tools), its resources' URIs, its
 * templates and prompts, and the manifest's governed_by, policies and data_access (which targets
 * are resources, and what governs them).
 */
import { canonicalString, CanonicalText } from '../../canonical/json.ts';
import type { Catalog, CatalogServer } from '../../catalog/types.ts';
import type { Estate } from '../../governance/estate.ts';
import { toolDerivedMembers, type DataEdge } from '../data-document.ts';
import { resourcesAndPrompts } from '../gateway-data.ts';
import type { ExposedTool } from '../policy-bundle.ts';
import type { KeptDerived, ManifestPiece } from './compile-state.ts';
import { frozenItemsText } from './frozen-inputs.ts';
import { sectionsUnchanged } from './manifest-digest.ts';

const OPTIONS = { allowFloats: true } as const;
const SECTIONS = ['governed_by', 'policies', 'data_access'];
const serverTexts = new WeakMap<CatalogServer, string>();

function catalogText(catalog: Catalog): string {
  return frozenItemsText(catalog, catalog.servers, serverTexts, (s) =>
    JSON.stringify([s.name, (s.tools ?? []).map((t) => t.name), (s.resources ?? []).map((r) => r.uri), (s.resourceTemplates ?? []).map((t) => t.uriTemplate), (s.prompts ?? []).map((p) => p.name)]),
  );
}

const text = (v: unknown) => new CanonicalText(canonicalString(v, OPTIONS));

/** The derived members of `estate`'s data document, from `previous` where what they read is the same. */
export function derivedMembers(estate: Estate, tools: readonly ExposedTool[], toolKeys: object, edges: readonly DataEdge[], previous?: { readonly derived?: KeptDerived; readonly manifest_pieces: readonly ManifestPiece[] }): KeptDerived {
  const kept = previous?.derived;
  const catalog = catalogText(estate.catalog);
  const byTools = kept !== undefined && kept.toolKeys === toolKeys && kept.edges === edges ? kept.texts : undefined;
  const byResources = kept !== undefined && kept.catalog === catalog && sectionsUnchanged(estate.manifest, previous!.manifest_pieces, SECTIONS) ? kept.texts : undefined;
  const fromTools = byTools ?? Object.fromEntries(Object.entries(toolDerivedMembers(tools, edges)).map(([k, v]) => [k, text(v)]));
  const fromResources = byResources ?? Object.fromEntries(Object.entries(resourcesAndPrompts(estate)).map(([k, v]) => [k, text(v)]));
  const texts = {
    signs_by_tool: fromTools.signs_by_tool!,
    tools_by_name: fromTools.tools_by_name!,
    resources: fromResources.resources!,
    resource_templates: fromResources.resource_templates!,
    prompts: fromResources.prompts!,
    prompts_by_name: fromResources.prompts_by_name!,
  };
  return { texts, toolKeys, edges, catalog };
}
