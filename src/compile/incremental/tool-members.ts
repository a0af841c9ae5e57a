/**
 * The three artifact members made of one entry per exposed tool: the policy bundle's `tools` list
 * and the data document's `tools` and `contracts` objects. Each is made on its own and then stands
 * in its artifact as one fragment, so a tool's entries lie at offsets within their member (they
 * stay true wherever the member moves when an agent's decisions before it change length). From the
 * previous compile, three ways, cheapest first:
 *
 *   - the same tool map (governance/estate.ts shares it while the catalog is the very same object):
 *     the members are copied whole, no tool looked at;
 *   - a tool map with the same tools, some with another contract object (a watch's catalog read
 *     from its previous version shares every unchanged tool): those tools' entries are spliced
 *     into the previous members, and the spans after them shifted;
 *   - anything else: each member assembled from its entries, the unchanged ones copied.
 */
import { canonicalString, CanonicalText } from '../../canonical/json.ts';
import { toolKey as toolKeyOf } from '../../catalog/types.ts';
import type { Estate, ToolNode } from '../../governance/estate.ts';
import { toolDocument } from '../data-document.ts';
import { toolContractDigest } from '../digests.ts';
import { toolContracts } from '../gateway-data.ts';
import { bundleToolEntry, exposedTools, type ExposedTool } from '../policy-bundle.ts';
import type { CompileState, ToolMembers, ToolPieces } from './compile-state.ts';
import { FragmentSlots, objectText, spanBytes, type Span } from './fragments.ts';
import type { Writable } from '../../governance/writable.types.ts';

const OPTIONS = { allowFloats: true } as const;
const encoder = new TextEncoder();

/** The contract keys of catalog tools that cannot change (deep-frozen: a watch's kept catalog), by tool. */
const frozenContractKeys = new WeakMap<object, { readonly server: string; readonly key: string }>();

/** What a tool's contract digest and entries are computed from, as text: equal texts, equal contracts. */
function contractKey(server: string, tool: object): string {
  if (!Object.isFrozen(tool)) return JSON.stringify([server, tool]);
  const known = frozenContractKeys.get(tool);
  if (known !== undefined && known.server === server) return known.key;
  const key = JSON.stringify([server, tool]);
  frozenContractKeys.set(tool, { server, key });
  return key;
}

/** The tools' part of a compile: the exposed tools, their three members' bytes and each tool's pieces (spans of those members). */
export interface PlannedTools {
  readonly tools: readonly ExposedTool[];
  readonly members: ToolMembers<Uint8Array>;
  readonly pieces: ReadonlyMap<string, ToolPieces>;
  /** The tools whose entries were computed rather than copied. */
  readonly recomputed: readonly string[];
}

/** The state's members as bytes of the artifacts it holds. */
function memberBytes(state: CompileState): ToolMembers<Uint8Array> {
  const { policy_bundle, data } = state.bytes;
  const m = state.tool_members;
  return { ...(m.bundle ? { bundle: spanBytes(policy_bundle, m.bundle) } : {}), documents: spanBytes(data, m.documents), contracts: spanBytes(data, m.contracts) };
}

/** A tool's three entries, encoded. */
function encodedEntries(estate: Estate, t: ExposedTool, toolgateFormat: boolean): ToolMembers<Uint8Array> {
  return {
    ...(toolgateFormat ? { bundle: encoder.encode(canonicalString(bundleToolEntry(t), OPTIONS)) } : {}),
    documents: encoder.encode(canonicalString(toolDocument(estate, t), OPTIONS)),
    contracts: encoder.encode(canonicalString(toolContracts(estate, [t])[t.tool_key], OPTIONS)),
  };
}

/** One member from its entries in tool order: a list, or an object keyed by tool; with each entry's span in it. */
function member(tools: readonly ExposedTool[], entries: readonly Uint8Array[], shape: 'list' | 'object'): { bytes: Uint8Array; spans: Span[] } {
  const slots = new FragmentSlots();
  const placed = entries.map((e) => slots.add(e));
  const value = shape === 'list' ? new CanonicalText(`[${placed.map((p) => p.placeholder.text).join(',')}]`) : objectText(tools.map((t, i) => [t.tool_key, placed[i]!.placeholder] as const));
  const { bytes, at } = slots.assemble(value);
  return { bytes, spans: entries.map((e, i) => ({ at: at[placed[i]!.slot]!, length: e.length })) };
}

/** The members assembled from every tool's entries: a kept tool's copied from the previous members. */
function assembledTools(prev: CompileState | undefined, estate: Estate, toolgateFormat: boolean): PlannedTools {
  const contractKeys = new Map<string, string>();
  const tools = exposedTools(estate, (server, tool) => {
    const key = contractKey(server, tool);
    const toolKey = toolKeyOf(server, tool.name);
    contractKeys.set(toolKey, key);
    const kept = prev?.tools.get(toolKey);
    return kept !== undefined && kept.contract_key === key ? kept.tool_contract_digest : toolContractDigest(server, tool);
  });
  const before = prev === undefined ? undefined : memberBytes(prev);
  const entries = { bundle: [] as Uint8Array[], documents: [] as Uint8Array[], contracts: [] as Uint8Array[] };
  const recomputed: string[] = [];
  for (const t of tools) {
    const kept = prev?.tools.get(t.tool_key);
    const fresh = kept !== undefined && kept.contract_key === contractKeys.get(t.tool_key) ? undefined : encodedEntries(estate, t, toolgateFormat);
    if (toolgateFormat) entries.bundle.push(fresh?.bundle ?? spanBytes(before!.bundle!, kept!.bundle_entry!));
    entries.documents.push(fresh?.documents ?? spanBytes(before!.documents, kept!.document));
    entries.contracts.push(fresh?.contracts ?? spanBytes(before!.contracts, kept!.contract));
    if (fresh !== undefined) recomputed.push(t.tool_key);
  }
  const bundle = toolgateFormat ? member(tools, entries.bundle, 'list') : undefined;
  const documents = member(tools, entries.documents, 'object');
  const contracts = member(tools, entries.contracts, 'object');
  const pieces = new Map<string, ToolPieces>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    const piece: Writable<ToolPieces> = { contract_key: contractKeys.get(t.tool_key)!, tool_contract_digest: t.tool_contract_digest, document: documents.spans[i]!, contract: contracts.spans[i]! };
    if (bundle) piece.bundle_entry = bundle.spans[i]!;
    pieces.set(t.tool_key, piece);
  }
  return { tools, members: { ...(bundle ? { bundle: bundle.bytes } : {}), documents: documents.bytes, contracts: contracts.bytes }, pieces, recomputed };
}

/**
 * The keys of the tools whose contract is another object in `after` than in `before`, when the two
 * maps hold the same tools in the same order (same keys, servers and exposure); else undefined.
 */
function otherContracts(before: ReadonlyMap<string, ToolNode>, after: ReadonlyMap<string, ToolNode>): Set<string> | undefined {
  if (before.size !== after.size) return undefined;
  const changed = new Set<string>();
  const was = before.values();
  for (const node of after.values()) {
    const b = was.next().value as ToolNode;
    if (b.key !== node.key || b.server !== node.server || b.exposed !== node.exposed || (b.contract === undefined) !== (node.contract === undefined)) return undefined;
    if (b.contract !== node.contract) changed.add(node.key);
  }
  return changed;
}

/** `bytes` with each span (in order, not overlapping) replaced by its entry. */
function spliced(bytes: Uint8Array, spans: readonly Span[], entries: readonly Uint8Array[]): Uint8Array {
  let length = bytes.length;
  spans.forEach((s, i) => (length += entries[i]!.length - s.length));
  const out = Buffer.allocUnsafe(length);
  let from = 0;
  let to = 0;
  spans.forEach((s, i) => {
    out.set(bytes.subarray(from, s.at), to);
    to += s.at - from;
    out.set(entries[i]!, to);
    to += entries[i]!.length;
    from = s.at + s.length;
  });
  out.set(bytes.subarray(from), to);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** The previous members with the entries of the tools in `changed` whose contract did change spliced in. */
function splicedTools(prev: CompileState, listed: readonly ExposedTool[], estate: Estate, changed: ReadonlySet<string>, toolgateFormat: boolean): PlannedTools {
  const redone: { index: number; contract_key: string; tool: ExposedTool; entries: ToolMembers<Uint8Array> }[] = [];
  listed.forEach((t, index) => {
    if (!changed.has(t.tool_key)) return;
    const node = estate.tools.get(t.tool_key)!;
    const key = contractKey(node.server!, node.contract!);
    // Another object with the same contract keeps its entries.
    if (key === prev.tools.get(t.tool_key)!.contract_key) return;
    const tool = { ...t, tool_contract_digest: toolContractDigest(node.server!, node.contract!) };
    redone.push({ index, contract_key: key, tool, entries: encodedEntries(estate, tool, toolgateFormat) });
  });
  if (redone.length === 0) return { tools: listed, members: memberBytes(prev), pieces: prev.tools, recomputed: [] };
  const tools = listed.slice();
  for (const r of redone) tools[r.index] = r.tool;
  const before = memberBytes(prev);
  const keptOf = (r: (typeof redone)[number]) => prev.tools.get(r.tool.tool_key)!;
  const members: ToolMembers<Uint8Array> = {
    ...(toolgateFormat ? { bundle: spliced(before.bundle!, redone.map((r) => keptOf(r).bundle_entry!), redone.map((r) => r.entries.bundle!)) } : {}),
    documents: spliced(before.documents, redone.map((r) => keptOf(r).document), redone.map((r) => r.entries.documents)),
    contracts: spliced(before.contracts, redone.map((r) => keptOf(r).contract), redone.map((r) => r.entries.contracts)),
  };
  // Every span after a spliced entry moves by what the entries before it grew.
  const pieces = new Map<string, ToolPieces>();
  const shift = { bundle: 0, documents: 0, contracts: 0 };
  const moved = (s: Span, by: number): Span => (by === 0 ? s : { at: s.at + by, length: s.length });
  let next = 0;
  let i = 0;
  // The previous pieces are in the listed order (every path above makes them so), walked without a lookup per tool.
  for (const [key, kept] of prev.tools) {
    if (key !== listed[i]?.tool_key) return assembledTools(prev, estate, toolgateFormat);
    const r = redone[next]?.index === i++ ? redone[next++] : undefined;
    if (r === undefined && shift.bundle === 0 && shift.documents === 0 && shift.contracts === 0) {
      pieces.set(key, kept);
      continue;
    }
    const piece: Writable<ToolPieces> = {
      contract_key: r?.contract_key ?? kept.contract_key,
      tool_contract_digest: r?.tool.tool_contract_digest ?? kept.tool_contract_digest,
      document: r ? { at: kept.document.at + shift.documents, length: r.entries.documents.length } : moved(kept.document, shift.documents),
      contract: r ? { at: kept.contract.at + shift.contracts, length: r.entries.contracts.length } : moved(kept.contract, shift.contracts),
    };
    if (kept.bundle_entry) piece.bundle_entry = r ? { at: kept.bundle_entry.at + shift.bundle, length: r.entries.bundle!.length } : moved(kept.bundle_entry, shift.bundle);
    if (r) {
      shift.documents += r.entries.documents.length - kept.document.length;
      shift.contracts += r.entries.contracts.length - kept.contract.length;
      if (kept.bundle_entry) shift.bundle += r.entries.bundle!.length - kept.bundle_entry.length;
    }
    pieces.set(key, piece);
  }
  if (i !== listed.length) return assembledTools(prev, estate, toolgateFormat);
  return { tools, members, pieces, recomputed: redone.map((r) => r.tool.tool_key) };
}

/**
 * The tools' part of compiling `estate`, from the previous compile's as far as it holds (see the
 * module comment).
 */
export function planTools(prev: CompileState | undefined, estate: Estate, toolgateFormat: boolean): PlannedTools {
  const listed = prev?.exposed;
  if (listed !== undefined) {
    if (listed.source === estate.tools) return { tools: listed.tools, members: memberBytes(prev!), pieces: prev!.tools, recomputed: [] };
    const changed = otherContracts(listed.source, estate.tools);
    if (changed !== undefined) return splicedTools(prev!, listed.tools, estate, changed, toolgateFormat);
  }
  return assembledTools(prev, estate, toolgateFormat);
}
