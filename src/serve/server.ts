/**
 * toolgate's query surface as an MCP server (MCP tools: `tools/list`, `tools/call`): the same
 * answers as the CLI's query commands, as structured content. Every tool is read-only and
 * idempotent and says so (`readOnlyHint`, `idempotentHint`). The estate comes from the caller's
 * `load` on every call, so an edited manifest or a re-crawled catalog is picked up; the caller may
 * hand back the same estate while its files are unchanged (cli/ caches on file identity), and then
 * the input digests and the selector index computed for it are reused. Every answer carries the
 * graph state and input digests it was computed from. When an input cannot be read or is refused,
 * the call fails with a typed envelope `{error_kind, retryable, message, code}` instead of a
 * protocol error.
 *
 * Every tool is a row of the query table (queries/table.ts): the tool list, the input and output
 * schemas and each answer are generated from it, so a query is written once for both surfaces.
 * The files a query names (a plan, a report, a connectome) are read through the caller's `files`,
 * which resolves each path and refuses what the server must not read.
 *
 * The transport is the caller's (cli/): this module does no I/O of its own.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { catalogDigest, governanceDigest } from '../governance/input-digests.ts';
import { nextGraphState, type InputDigests, type PreviousState } from '../compile/graph-state.ts';
import { isToolgateError, type ToolgateErrorCode } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import type { GraphState } from '../governance/types.ts';
import { fromPeerArg, peerArgDescription, peerArgName, peerArgs, peerOutputSchema, peerResult, peerRows, peerToolName, type CompatDialect } from '../queries/compat-toolgraph.ts';
import { declaredConnectomeDigest } from '../queries/connectome-digest.ts';
import { QUERIES, type QueryArg, type QueryArgs, type QueryDef, type QueryEnv } from '../queries/table.ts';

/** What one call computes from: the estate and the diagnostics loading it produced. */
export interface LoadedEstate {
  readonly estate: Estate;
  /** DRIFT and warning lines from loading (what the CLI prints on stderr). */
  readonly notices: readonly string[];
}

/** How the server reads the files a call names; each function throws ToolgateError (FILE_UNREADABLE, USAGE for a path it must not read). */
export interface ServeFiles {
  readonly read: QueryEnv['readFile'];
  readonly readOptional: QueryEnv['readOptionalFile'];
  readonly realPath: QueryEnv['realPath'];
}

export interface ServeOptions {
  /**
   * Loads the estate for one call; throws ToolgateError when an input cannot be read or is invalid.
   * It may return the same LoadedEstate while the inputs are unchanged (cli/ caches on file
   * identity): the digests and the selector index are then reused as well.
   */
  readonly load: () => LoadedEstate;
  /** Reads the files a call names (a query's `file` arguments). */
  readonly files: ServeFiles;
  /** The created_at of an artifact answered now (RFC 3339 UTC); the caller owns the clock. */
  readonly createdAt: () => string;
  /** The enforcement Rego the package ships; the caller reads it. */
  readonly enforcementRego: QueryEnv['enforcementRego'];
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Shared between the servers of one process (HTTP makes one per request) so generations count across calls. */
  readonly state?: GraphStateTracker;
  /** Answer in another product's dialect (tool and argument names, result shapes, errors) instead of toolgate's. */
  readonly compat?: CompatDialect;
  /**
   * The documents of schemas/results/, by result name (the caller reads them): each query tool then
   * lists an outputSchema, the answer envelope with that result, or the error envelope.
   */
  readonly resultSchemas?: ReadonlyMap<string, object>;
}

export type ErrorKind = 'input_unreadable' | 'input_invalid' | 'invalid_arguments' | 'internal';

export interface ErrorEnvelope {
  readonly error_kind: ErrorKind;
  readonly retryable: boolean;
  readonly message: string;
  /** The ToolgateError code behind it, when there is one. */
  readonly code: ToolgateErrorCode | null;
}

/**
 * Follows graph_state across calls as `compile` does across runs: the instance id is the estate's,
 * and the generation rises by one each time the input digests change, and only then.
 */
export class GraphStateTracker {
  private previous: PreviousState | undefined;

  next(estate: Estate, digests: InputDigests): GraphState {
    const n = nextGraphState(estate, digests, this.previous);
    this.previous = { graph_state: n.graph_state, digests };
    return n.graph_state;
  }
}

const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false } as const;

/** The argument shapes the tools take; `checkArguments` enforces exactly these. */
type ArgSchema =
  | { readonly type: 'string'; readonly minLength: 1; readonly description: string; readonly enum?: readonly string[] }
  | { readonly type: 'boolean'; readonly description: string }
  | { readonly type: 'array'; readonly items: { readonly type: 'string'; readonly minLength: 1 }; readonly minItems: 1; readonly description: string };

interface ToolDef {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly args: Readonly<Record<string, ArgSchema>>;
  readonly required: readonly string[];
  /** Our argument names of the tool's arguments. */
  readonly ours: (args: Readonly<Record<string, unknown>>) => QueryArgs;
  /** The table row behind it. */
  readonly query: QueryDef;
}

const str = (description: string, values?: readonly string[]): ArgSchema => ({ type: 'string', minLength: 1, description, ...(values ? { enum: values } : {}) });

function argSchema(a: QueryArg): ArgSchema {
  switch (a.kind) {
    case 'string':
      return str(a.description, a.values);
    case 'file':
      return str(`${a.description}; resolved against the server's working directory, it must lie under the estate's folders or a --diff-root given at start`);
    case 'boolean':
      return { type: 'boolean', description: a.description };
    case 'strings':
      return { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, description: a.description };
  }
}

/** One MCP tool per row of the query table: the same arguments and the same answer as its CLI command. */
function queryTool(q: QueryDef): ToolDef {
  return {
    name: q.tool,
    title: q.title,
    description: `${q.description} Same answer as \`toolgate ${q.name}\`.`,
    args: Object.fromEntries(q.args.map((a) => [a.name, argSchema(a)])),
    required: q.args.filter((a) => a.required === 'both').map((a) => a.name),
    ours: (args) => args as QueryArgs,
    query: q,
  };
}

/** The same row as the peer toolgraph names it and its arguments (queries/compat-toolgraph.ts). */
function peerTool(q: QueryDef): ToolDef {
  const peer = (name: string) => peerArgName(q, name);
  const args = peerArgs(q);
  return {
    name: peerToolName(q),
    title: q.title,
    description: q.description,
    args: Object.fromEntries(args.map((a) => [peer(a.name), argSchema({ ...a, description: peerArgDescription(q, a.name, a.description) })])),
    required: args.filter((a) => a.required === 'both').map((a) => peer(a.name)),
    ours: (given) => Object.fromEntries(args.map((a) => [a.name, fromPeerArg(q, a.name, given[peer(a.name)])])) as QueryArgs,
    query: q,
  };
}

const DEFS: readonly ToolDef[] = QUERIES.map(queryTool);

// Only the queries the peer has, under its names.
const PEER_DEFS: readonly ToolDef[] = peerRows(QUERIES).map(peerTool);

/** A tool's answer: the envelope around the query's result, or the error envelope. */
function outputSchema(resultSchema: object): Tool['outputSchema'] {
  // Embedded as a subschema: its own $schema and $id would make it a separate resource.
  const { $schema: _s, $id: _i, ...result } = resultSchema as Record<string, unknown>;
  return {
    type: 'object',
    anyOf: [
      {
        required: ['result', 'graph_state', 'governance_digest', 'catalog_digest', 'notices'],
        additionalProperties: false,
        properties: { result, graph_state: { type: 'object' }, governance_digest: { type: 'string' }, catalog_digest: { type: 'string' }, notices: { type: 'array', items: { type: 'string' } } },
      },
      {
        required: ['error_kind', 'retryable', 'message', 'code', 'graph_state'],
        additionalProperties: false,
        properties: { error_kind: { enum: ['input_unreadable', 'input_invalid', 'invalid_arguments', 'internal'] }, retryable: { type: 'boolean' }, message: { type: 'string' }, code: { type: ['string', 'null'] }, graph_state: { type: 'null' } },
      },
    ],
  } as Tool['outputSchema'];
}

function toolList(defs: readonly ToolDef[], resultSchemas: ReadonlyMap<string, object> | undefined): readonly Tool[] {
  return defs.map((d) => {
    const schema = resultSchemas?.get(d.query.result);
    return {
      name: d.name,
      title: d.title,
      description: d.description,
      inputSchema: { type: 'object', properties: d.args as Record<string, object>, required: [...d.required], additionalProperties: false },
      ...(schema ? { outputSchema: outputSchema(schema) } : {}),
      annotations: { title: d.title, ...ANNOTATIONS },
    };
  });
}

function withPeerOutput(name: string, compatSchema: object | undefined): Pick<Tool, 'outputSchema'> {
  const schema = peerOutputSchema(name, compatSchema);
  return schema ? { outputSchema: schema as Tool['outputSchema'] } : {};
}

/** Names of the tools the server exposes. */
export const SERVE_TOOL_NAMES: readonly string[] = DEFS.map((d) => d.name);

function checkArguments(def: ToolDef, args: unknown): string | undefined {
  if (args === undefined) args = {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'arguments must be an object';
  const a = args as Record<string, unknown>;
  for (const k of Object.keys(a)) if (!Object.hasOwn(def.args, k)) return `unknown argument ${JSON.stringify(k)}`;
  for (const k of def.required) if (a[k] === undefined) return `missing argument ${JSON.stringify(k)}`;
  for (const [k, p] of Object.entries(def.args)) {
    const v = a[k];
    if (v === undefined) continue;
    const name = JSON.stringify(k);
    switch (p.type) {
      case 'string':
        if (typeof v !== 'string' || v === '') return `argument ${name} must be a non-empty string`;
        if (p.enum && !p.enum.includes(v)) return `argument ${name} must be one of ${p.enum.join(', ')}`;
        break;
      case 'boolean':
        if (typeof v !== 'boolean') return `argument ${name} must be a boolean`;
        break;
      case 'array': {
        if (!Array.isArray(v)) return `argument ${name} must be an array of non-empty strings`;
        if (v.length < p.minItems) return `argument ${name} must hold at least ${p.minItems} item`;
        const i = v.findIndex((x) => typeof x !== 'string' || x === '');
        if (i !== -1) return `argument ${name}[${i}] must be a non-empty string`;
        break;
      }
    }
  }
  return undefined;
}

function envelope(e: unknown): ErrorEnvelope {
  if (isToolgateError(e)) {
    // A file that cannot be read may appear (a crawl still writing, a mount coming back); a file
    // that was read and refused will not change by asking again.
    const unreadable = e.code === 'FILE_UNREADABLE';
    return { error_kind: unreadable ? 'input_unreadable' : e.code === 'USAGE' ? 'invalid_arguments' : 'input_invalid', retryable: unreadable, message: e.message, code: e.code };
  }
  return { error_kind: 'internal', retryable: false, message: e instanceof Error ? e.message : String(e), code: null };
}

function failure(env: ErrorEnvelope): CallToolResult {
  // No estate was computed from, so there is no graph state to report; say so explicitly.
  const structured = { ...env, graph_state: null };
  return { isError: true, structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
}

const digestMemo = new WeakMap<Estate, InputDigests & { governance_digest: string; catalog_digest: string }>();

/** The estate's input digests, computed once per estate object (a cached estate costs nothing here). */
function inputDigests(estate: Estate): InputDigests & { governance_digest: string; catalog_digest: string } {
  let d = digestMemo.get(estate);
  if (!d) {
    d = { governance_digest: governanceDigest(estate.manifest.raw), catalog_digest: catalogDigest(estate.catalog), connectome_digest: null };
    digestMemo.set(estate, d);
  }
  return d;
}

/**
 * An MCP server answering toolgate's queries. Connect it to any server transport.
 *
 * @example
 * const server = createServeServer({ load, files, createdAt, serverInfo: { name: 'toolgate', version: '0.1.0' } });
 * await server.connect(new StdioServerTransport());
 */
export function createServeServer(options: ServeOptions): Server {
  const state = options.state ?? new GraphStateTracker();
  const server = new Server({ name: options.serverInfo.name, version: options.serverInfo.version }, { capabilities: { tools: {} } });
  const peer = options.compat === 'toolgraph';
  const defs = peer ? PEER_DEFS : DEFS;
  // The peer's answers are reshaped from ours: schemas/results/compat-toolgraph.schema.json describes them.
  // Built on the first tools/list only: over HTTP each call gets a server of its own.
  const toolsListed = (): readonly Tool[] => {
    if (!peer) return toolList(defs, options.resultSchemas);
    const compatSchema = options.resultSchemas?.get('compat-toolgraph');
    return toolList(defs, undefined).map((t) => ({ ...t, ...withPeerOutput(t.name, compatSchema) }));
  };
  let tools: readonly Tool[] | undefined;
  // The peer's only typed error is the availability signal; everything else is a normal MCP error.
  const fail = (env: ErrorEnvelope): CallToolResult => {
    if (!peer) return failure(env);
    if (env.error_kind === 'input_unreadable') {
      const structured = { error_kind: 'backend_unavailable', retryable: true, message: env.message };
      return { isError: true, structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
    }
    throw new McpError(env.error_kind === 'internal' ? ErrorCode.InternalError : ErrorCode.InvalidParams, env.message);
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...(tools ??= toolsListed())] }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const def = defs.find((t) => t.name === req.params.name);
    if (!def) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(req.params.name)}; tools: ${defs.map((d) => d.name).join(', ')}`);
    const args = def.ours(req.params.arguments ?? {});
    const bad = checkArguments(def, req.params.arguments) ?? def.query.check?.(args);
    if (bad) return fail({ error_kind: 'invalid_arguments', retryable: false, message: `${def.name}: ${bad}`, code: null });
    let loaded: LoadedEstate;
    try {
      loaded = options.load();
    } catch (e) {
      return fail(envelope(e));
    }
    try {
      const { estate } = loaded;
      const digests = inputDigests(estate);
      const graph_state = state.next(estate, digests);
      const env: QueryEnv = {
        estate: () => estate,
        readFile: options.files.read,
        readOptionalFile: options.files.readOptional,
        realPath: options.files.realPath,
        createdAt: options.createdAt,
        runState: () => ({ graph_state, digests: { ...digests, connectome_digest: declaredConnectomeDigest(estate) } }),
        enforcementRego: options.enforcementRego,
      };
      const q = def.query;
      const raw = await q.run(env, args);
      const result = q.answer ? await q.answer(raw) : raw;
      if (peer) {
        const answer = peerResult(q, result, estate, graph_state) as Record<string, unknown>;
        return { structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] };
      }
      const structured = { result, graph_state, governance_digest: digests.governance_digest, catalog_digest: digests.catalog_digest, notices: [...loaded.notices] };
      return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
    } catch (e) {
      if (e instanceof McpError) throw e;
      return fail(envelope(e));
    }
  });
  return server;
}
