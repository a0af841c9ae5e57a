/**
 * The three artifact members made of one entry per exposed tool: the policy bundle's `tools` list
 * and the data document's `tools` and `contracts` objects. Each is made on its own and then stands
 * in its artifact as one fragment, so a tool's entries lie at offsets within their member (they
 * stay true wherever the member moves when an agent's decisions before it change length). From the
 * previous compile, three ways, cheapest first:
 *
 *   - the same tool map (governance/catalog-tools.ts shares it while the catalog is the very same
 *     object): the members are copied whole, no tool looked at;
 *   - a tool map made from that one with some tools' contracts replaced (a watch's catalog read
 *     from its previous version shares every unchanged tool, and the map says which changed):
 *     those tools' entries are spliced into the previous members, and the offsets after them moved;
 *   - anything else: each member assembled from its entries, the unchanged ones copied.
 */
import { ByteSegments } from '../../canonical/byte-segments.ts';
import { canonicalString, CanonicalText } from '../../canonical/json.ts';
import { toolKey as toolKeyOf } from '../../catalog/types.ts';
import type { Estate } from '../../governance/estate.ts';
import { toolChangesSince } from '../../governance/catalog-tools.ts';
import { toolDocument } from '../data-document.ts';
import { toolContractDigest } from '../digests.ts';
import { toolContracts } from '../gateway-data.ts';
import { bundleToolEntry, exposedTools, type ExposedTool } from '../policy-bundle.ts';
import { SPAN_COLUMN, SPAN_ROW, toolSpan, type CompileState, type ToolMembers, type ToolPieces, type ToolSpans } from './compile-state.ts';
import { FragmentSlots, objectText, spanBytes, type FragmentBytes, type Span } from './fragments.ts';

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
  readonly members: ToolMembers<FragmentBytes>;
  readonly pieces: ReadonlyMap<string, ToolPieces>;
  readonly spans: ToolSpans;
  /** The tools whose entries were computed rather than copied. */
  readonly recomputed: readonly string[];
  /** Stands for the tools' keys: the previous plan's object when they are the same. */
  readonly keys: object;
  /** The tool keys are the previous compile's (the entries of the others were copied). */
  readonly sameKeys: boolean;
}

const MEMBERS = ['bundle', 'documents', 'contracts'] as const;

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
    if (kept !== undefined && kept.contract_key === contractKeys.get(t.tool_key)) {
      for (const m of MEMBERS) if (m !== 'bundle' || toolgateFormat) entries[m].push(spanBytes(before![m]!, toolSpan(prev!.tool_spans, kept.row, m)!));
      continue;
    }
    const fresh = encodedEntries(estate, t, toolgateFormat);
    for (const m of MEMBERS) if (m !== 'bundle' || toolgateFormat) entries[m].push(fresh[m]!);
    recomputed.push(t.tool_key);
  }
  const made = { bundle: toolgateFormat ? member(tools, entries.bundle, 'list') : undefined, documents: member(tools, entries.documents, 'object'), contracts: member(tools, entries.contracts, 'object') };
  const spans: ToolSpans = new Float64Array(tools.length * SPAN_ROW);
  const pieces = new Map<string, ToolPieces>();
  tools.forEach((t, row) => {
    for (const m of MEMBERS) {
      const span = made[m]?.spans[row];
      spans[row * SPAN_ROW + SPAN_COLUMN[m]] = span?.at ?? -1;
      spans[row * SPAN_ROW + SPAN_COLUMN[m] + 1] = span?.length ?? 0;
    }
    pieces.set(t.tool_key, { contract_key: contractKeys.get(t.tool_key)!, tool_contract_digest: t.tool_contract_digest, row });
  });
  const members = { ...(made.bundle ? { bundle: made.bundle.bytes } : {}), documents: made.documents.bytes, contracts: made.contracts.bytes };
  return { tools, members, pieces, spans, recomputed, keys: {}, sameKeys: false };
}

/** `bytes` with each span (in order, not overlapping) replaced by its entry, as views: its artifact is where the parts are first copied. */
function spliced(bytes: Uint8Array, spans: readonly Span[], entries: readonly Uint8Array[]): ByteSegments {
  const parts: Uint8Array[] = [];
  let from = 0;
  spans.forEach((s, i) => {
    parts.push(bytes.subarray(from, s.at), entries[i]!);
    from = s.at + s.length;
  });
  parts.push(bytes.subarray(from));
  return new ByteSegments(parts);
}

/** `before` with each entry of `redone` given its new length and every offset after one moved by what the entries before it grew. */
function shiftedSpans(before: ToolSpans, redone: readonly { row: number; entries: ToolMembers<Uint8Array> }[]): ToolSpans {
  const spans = before.slice();
  for (const m of MEMBERS) {
    const col = SPAN_COLUMN[m];
    if (redone[0]!.entries[m] === undefined) continue;
    // Where each redone entry was in its member, in order, and what the member grew by up to and including it.
    const edits = redone.map((r) => ({ at: before[r.row * SPAN_ROW + col]!, grew: r.entries[m]!.length - before[r.row * SPAN_ROW + col + 1]! })).sort((x, y) => x.at - y.at);
    const grown: number[] = [];
    edits.reduce((sum, e) => (grown.push(sum + e.grew), sum + e.grew), 0);
    for (const r of redone) spans[r.row * SPAN_ROW + col + 1] = r.entries[m]!.length;
    for (let k = col; k < spans.length; k += SPAN_ROW) {
      const at = before[k]!;
      // How many redone entries lie before this one: the last of them says how far it moves.
      let lo = 0;
      let hi = edits.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (edits[mid]!.at < at) lo = mid + 1;
        else hi = mid;
      }
      if (at >= 0 && lo > 0) spans[k] = at + grown[lo - 1]!;
    }
  }
  return spans;
}

/** The previous members with the entries of the tools in `changed` whose contract did change spliced in. */
function splicedTools(prev: CompileState, listed: readonly ExposedTool[], estate: Estate, changed: ReadonlySet<string>, toolgateFormat: boolean): PlannedTools {
  const redone: { key: string; index: number; row: number; contract_key: string; tool: ExposedTool; entries: ToolMembers<Uint8Array> }[] = [];
  listed.forEach((t, index) => {
    if (!changed.has(t.tool_key)) return;
    const node = estate.tools.get(t.tool_key)!;
    const key = contractKey(node.server!, node.contract!);
    const kept = prev.tools.get(t.tool_key)!;
    // Another object with the same contract keeps its entries.
    if (key === kept.contract_key) return;
    const tool = { ...t, tool_contract_digest: toolContractDigest(node.server!, node.contract!) };
    redone.push({ key: t.tool_key, index, row: kept.row, contract_key: key, tool, entries: encodedEntries(estate, tool, toolgateFormat) });
  });
  if (redone.length === 0) return { tools: listed, members: memberBytes(prev), pieces: prev.tools, spans: prev.tool_spans, recomputed: [], keys: prev.exposed!.keys, sameKeys: true };
  const tools = listed.slice();
  for (const r of redone) tools[r.index] = r.tool;
  const before = memberBytes(prev);
  const members: Partial<Record<(typeof MEMBERS)[number], FragmentBytes>> = {};
  for (const m of MEMBERS) {
    if (before[m] === undefined) continue;
    members[m] = spliced(before[m]!, redone.map((r) => toolSpan(prev.tool_spans, r.row, m)!), redone.map((r) => r.entries[m]!));
  }
  const pieces = new Map(prev.tools);
  for (const r of redone) pieces.set(r.key, { contract_key: r.contract_key, tool_contract_digest: r.tool.tool_contract_digest, row: r.row });
  return { tools, members: members as ToolMembers<FragmentBytes>, pieces, spans: shiftedSpans(prev.tool_spans, redone), recomputed: redone.map((r) => r.key), keys: prev.exposed!.keys, sameKeys: true };
}

/**
 * The tools' part of compiling `estate`, from the previous compile's as far as it holds (see the
 * module comment).
 */
export function planTools(prev: CompileState | undefined, estate: Estate, toolgateFormat: boolean): PlannedTools {
  const listed = prev?.exposed;
  if (listed !== undefined) {
    if (listed.source === estate.tools) return { tools: listed.tools, members: memberBytes(prev!), pieces: prev!.tools, spans: prev!.tool_spans, recomputed: [], keys: listed.keys, sameKeys: true };
    const changed = toolChangesSince(estate.tools, listed.source);
    if (changed !== undefined) return splicedTools(prev!, listed.tools, estate, changed, toolgateFormat);
  }
  return assembledTools(prev, estate, toolgateFormat);
}
