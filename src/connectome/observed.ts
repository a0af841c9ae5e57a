/**
 * The observed connectome from what ran (reference: beam_mcp docs/connectome-observed.md): one
 * `invoke` edge per tool called (or `read` per resource, template or prompt read) from its server,
 * provenance `observed`, sign `unset`, nodes without labels, the call count as the edge's weight
 * (sidecar only). An observation carries edge identity only: a record that carries arguments,
 * results or headers is refused, never trimmed.
 *
 * Two inputs: dispatch events, one JSON object per line
 * (`{"server","kind":"invoke"|"read","target","target_kind"?,"at"?,"outcome"?}`), and OpenTelemetry
 * spans exported as OTLP/JSON (`resourceSpans`, one request per line or one per file) that carry
 * MCP tool-call attributes (`mcp.method.name`, `gen_ai.tool.name`, `mcp.resource.uri`,
 * `gen_ai.prompt.name`; the server from `mcp.server.name` or the resource's `service.name`).
 */
import { rfc3339Ms } from '../parse/rfc3339.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { ToolgateError, isToolgateError } from '../errors.ts';
import { buildGraph, nodeFromIdentity, type ConnectomeEdge, type ConnectomeNode, type Graph } from './graph.ts';
import { describeValue } from './describe-value.ts';
import type { NamedIdentity } from './identity.ts';

export interface ObservationWindow {
  /** Inclusive start, milliseconds since the epoch. */
  readonly startMs: number;
  /** Exclusive end, milliseconds since the epoch. */
  readonly endMs: number;
}

export interface ObserveResult {
  readonly graph: Graph;
  /** Calls counted (every attempt, failed ones included). */
  readonly counted: number;
  /** Records with a time outside the window, left out of the count. */
  readonly outsideWindow: number;
}

/** Keys that would carry a payload; their presence refuses the record. */
const PAYLOAD_KEYS = /^(arguments|args|argv|params|parameters|input|inputs|request|response|result|results|output|outputs|content|contents|body|payload|headers?|messages?|error|stacktrace|text)$/i;
const EVENT_KEYS = new Set(['server', 'kind', 'target', 'target_kind', 'at', 'outcome']);
/** OTLP attribute names that carry payload bytes. */
const PAYLOAD_ATTRIBUTE = /(^|\.)(arguments|argument|args|params|result|results|input|output|content|body|payload|messages?)(\.|$)|header/i;

type Target = NamedIdentity['tag'];

function parseTime(v: unknown, where: string, fail: (t: string, p: string) => never): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return Number(BigInt(v) / 1_000_000n); // unix nanoseconds (OTLP)
    const ms = rfc3339Ms(v);
    if (ms !== undefined) return ms;
  }
  return fail(`time ${describeValue(v)} is not an RFC 3339 timestamp or epoch milliseconds`, where);
}

/** Parses an RFC 3339 window bound to epoch milliseconds. */
export function parseWindowBound(text: string, name: string): number {
  const ms = rfc3339Ms(text, { secondsOptional: true });
  if (ms === undefined) {
    throw new ToolgateError('USAGE', `${name} must be an RFC 3339 timestamp with a zone, got ${JSON.stringify(text)}`);
  }
  return ms;
}

class Collector {
  readonly nodes = new Map<string, ConnectomeNode>();
  readonly counts = new Map<string, { edge: Omit<ConnectomeEdge, 'weight'>; count: number }>();
  counted = 0;
  outside = 0;
  constructor(readonly window: ObservationWindow) {}

  add(server: string, tag: Target, name: string, atMs: number | undefined): void {
    if (atMs !== undefined && (atMs < this.window.startMs || atMs >= this.window.endMs)) {
      this.outside++;
      return;
    }
    const s = nodeFromIdentity({ tag: 'server', server });
    const t = nodeFromIdentity({ tag, server, name });
    this.nodes.set(s.id, s);
    this.nodes.set(t.id, t);
    const kind = tag === 'tool' ? 'invoke' : 'read';
    const key = `${t.id}\u0000${kind}`;
    const row = this.counts.get(key);
    if (row) row.count++;
    else this.counts.set(key, { edge: { from: s.id, to: t.id, kind, provenance: 'observed', sign: 'unset' }, count: 1 });
    this.counted++;
  }

  result(): ObserveResult {
    const edges: ConnectomeEdge[] = [...this.counts.values()].map((r) => ({ ...r.edge, weight: r.count }));
    return { graph: buildGraph({ nodes: [...this.nodes.values()], edges }, { source: '<observations>' }), counted: this.counted, outsideWindow: this.outside };
  }
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

function readEvent(rec: Record<string, unknown>, c: Collector, fail: (t: string, p: string) => never): void {
  for (const k of Object.keys(rec)) {
    if (PAYLOAD_KEYS.test(k)) fail(`the record carries ${JSON.stringify(k)}: an observation holds edge identity only (never arguments, results or headers); refused, not trimmed`, k);
    if (!EVENT_KEYS.has(k)) fail(`unknown field ${JSON.stringify(k)}: an event names server, kind, target (and optionally target_kind, at, outcome)`, k);
  }
  if (!nonEmpty(rec.server)) fail(`server must be a non-empty string, got ${describeValue(rec.server)}`, 'server');
  if (!nonEmpty(rec.target)) fail(`target must be a non-empty string, got ${describeValue(rec.target)}`, 'target');
  let tag: Target;
  if (rec.kind === 'invoke') {
    if (rec.target_kind !== undefined && rec.target_kind !== 'tool') fail(`an invoke targets a tool, got target_kind ${describeValue(rec.target_kind)}`, 'target_kind');
    tag = 'tool';
  } else if (rec.kind === 'read') {
    if (rec.target_kind !== 'resource' && rec.target_kind !== 'resource_template' && rec.target_kind !== 'prompt') {
      fail(`a read names target_kind "resource", "resource_template" or "prompt", got ${describeValue(rec.target_kind)}`, 'target_kind');
    }
    tag = rec.target_kind;
  } else {
    return fail(`kind must be "invoke" or "read", got ${describeValue(rec.kind)}`, 'kind');
  }
  if (rec.outcome !== undefined && rec.outcome !== 'ok' && rec.outcome !== 'error') fail(`outcome must be "ok" or "error", got ${describeValue(rec.outcome)}`, 'outcome');
  c.add(rec.server, tag, rec.target, rec.at === undefined ? undefined : parseTime(rec.at, 'at', fail));
}

function attrs(list: unknown): Map<string, unknown> {
  const m = new Map<string, unknown>();
  if (!Array.isArray(list)) return m;
  for (const a of list) {
    if (!isJsonObject(a) || typeof a.key !== 'string') continue;
    const v = isJsonObject(a.value) ? (a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value) : a.value;
    m.set(a.key, v);
  }
  return m;
}

function readOtlp(req: Record<string, unknown>, c: Collector, fail: (t: string, p: string) => never): void {
  const rs = req.resourceSpans;
  if (!Array.isArray(rs)) fail('resourceSpans must be an array', 'resourceSpans');
  rs.forEach((r, ri) => {
    if (!isJsonObject(r)) fail('a resourceSpans entry must be an object', `resourceSpans[${ri}]`);
    const resAttrs = attrs(isJsonObject(r.resource) ? r.resource.attributes : undefined);
    const scopes = r.scopeSpans ?? r.instrumentationLibrarySpans ?? [];
    if (!Array.isArray(scopes)) fail('scopeSpans must be an array', `resourceSpans[${ri}].scopeSpans`);
    scopes.forEach((sc, si) => {
      const spans = isJsonObject(sc) ? sc.spans : undefined;
      if (!Array.isArray(spans)) return;
      spans.forEach((span, pi) => {
        const where = `resourceSpans[${ri}].scopeSpans[${si}].spans[${pi}]`;
        if (!isJsonObject(span)) fail('a span must be an object', where);
        const a = attrs(span.attributes);
        for (const k of a.keys()) {
          if (PAYLOAD_ATTRIBUTE.test(k)) fail(`span attribute ${JSON.stringify(k)} carries a payload: an observation holds edge identity only; refused, not trimmed`, `${where}.attributes`);
        }
        const method = a.get('mcp.method.name');
        if (method === undefined) return; // not an MCP span
        const server = a.get('mcp.server.name') ?? resAttrs.get('mcp.server.name') ?? resAttrs.get('service.name');
        if (!nonEmpty(server)) fail('an MCP span names no server (mcp.server.name or the resource service.name)', where);
        const at = span.startTimeUnixNano === undefined ? undefined : parseTime(String(span.startTimeUnixNano), `${where}.startTimeUnixNano`, fail);
        if (method === 'tools/call') {
          const tool = a.get('gen_ai.tool.name') ?? a.get('mcp.tool.name');
          if (!nonEmpty(tool)) fail('a tools/call span names no tool (gen_ai.tool.name)', where);
          c.add(server, 'tool', tool, at);
        } else if (method === 'resources/read') {
          const uri = a.get('mcp.resource.uri');
          if (!nonEmpty(uri)) fail('a resources/read span names no mcp.resource.uri', where);
          c.add(server, 'resource', uri, at);
        } else if (method === 'prompts/get') {
          const name = a.get('gen_ai.prompt.name') ?? a.get('mcp.prompt.name');
          if (!nonEmpty(name)) fail('a prompts/get span names no prompt (gen_ai.prompt.name)', where);
          c.add(server, 'prompt', name, at);
        }
      });
    });
  });
}

/**
 * The observed graph from JSONL text: each line a dispatch event or an OTLP/JSON export request.
 * @example observeFromText('{"server":"s","kind":"invoke","target":"t"}\n', 'e.jsonl', w).graph.edges[0].weight // 1
 */
export function observeFromText(text: string, source: string, window: ObservationWindow): ObserveResult {
  if (!(window.startMs < window.endMs)) throw new ToolgateError('OBSERVATION_INVALID', 'the window must end after it starts', { at: [{ file: source }] });
  const c = new Collector(window);
  const trimmed = text.trimStart();
  // A pretty-printed OTLP file is one JSON document; otherwise one record per line.
  const lines = trimmed.startsWith('{') && /^\{\s*\n/.test(trimmed) ? [text] : text.split('\n');
  let lineNo = 0;
  for (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    const fail = (t: string, p: string): never => {
      throw new ToolgateError('OBSERVATION_INVALID', `${source}:${lineNo}: ${t}`, { at: [{ file: source, line: lineNo, path: p }] });
    };
    let rec: unknown;
    try {
      rec = parseJsonInput(line, source, { line: lineNo });
    } catch (e) {
      if (!isToolgateError(e)) throw e;
      throw new ToolgateError('OBSERVATION_INVALID', e.message, { at: e.at });
    }
    const obj = isJsonObject(rec) ? rec : fail(`each line must be a JSON object, got ${describeValue(rec)}`, '');
    if ('resourceSpans' in obj) readOtlp(obj, c, fail);
    else readEvent(obj, c, fail);
  }
  return c.result();
}

/** The observed graph from records already parsed (dispatch events or OTLP requests). */
export function observeFromRecords(records: readonly unknown[], window: ObservationWindow): ObserveResult {
  return observeFromText(records.map((r) => JSON.stringify(r)).join('\n'), '<records>', window);
}
