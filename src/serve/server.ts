/**
 * toolgate's query surface as an MCP server (MCP tools: `tools/list`, `tools/call`): the same
 * answers as the CLI's query commands, as structured content. Every tool is read-only and
 * idempotent and says so (`readOnlyHint`, `idempotentHint`). The estate is loaded afresh for each
 * call through the caller's `load`, so an edited manifest or a re-crawled catalog is picked up,
 * and every answer carries the graph state and input digests it was computed from. When an input
 * cannot be read or is refused, the call fails with a typed envelope
 * `{error_kind, retryable, message, code}` instead of a protocol error.
 *
 * The transport is the caller's (cli/): this module does no I/O of its own.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { catalogDigest, governanceDigest } from '../compile/digests.ts';
import { decide } from '../compile/decisions.ts';
import { nextGraphState, type InputDigests, type PreviousState } from '../compile/graph-state.ts';
import { isToolgateError, type ToolgateErrorCode } from '../errors.ts';
import { blastRadius } from '../governance/blast-radius.ts';
import { checkAccess } from '../governance/check-access.ts';
import { cmp, type Estate } from '../governance/estate.ts';
import { PROFILES, type GraphState, type Profile } from '../governance/types.ts';
import { unsafeTools } from '../governance/unsafe-tools.ts';

/** What one call computes from: the estate and the diagnostics loading it produced. */
export interface LoadedEstate {
  readonly estate: Estate;
  /** DRIFT and warning lines from loading (what the CLI prints on stderr). */
  readonly notices: readonly string[];
}

export interface ServeOptions {
  /** Loads the estate for one call; throws ToolgateError when an input cannot be read or is invalid. */
  readonly load: () => LoadedEstate;
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Shared between the servers of one process (HTTP makes one per request) so generations count across calls. */
  readonly state?: GraphStateTracker;
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

interface ToolSpec {
  readonly tool: Tool;
  readonly run: (estate: Estate, args: Record<string, unknown>) => unknown;
}

const str = (description: string) => ({ type: 'string', minLength: 1, description });

const TOOLS: readonly ToolSpec[] = [
  {
    tool: {
      name: 'check_access',
      title: 'Check access',
      description: 'Is AGENT allowed TOOL? The verdict (ALLOW, DENY, NOT_GRANTED, AGENT_NOT_FOUND, TOOL_NOT_FOUND, AMBIGUOUS_TOOL) with every DENY path as evidence. Same answer as `toolgate check-access`.',
      inputSchema: { type: 'object', properties: { agent: str('agent id'), tool: str('tool, qualified server::tool or a bare name exposed by exactly one server') }, required: ['agent', 'tool'], additionalProperties: false },
      annotations: { title: 'Check access', ...ANNOTATIONS },
    },
    run: (estate, a) => checkAccess(estate, a.agent as string, a.tool as string),
  },
  {
    tool: {
      name: 'unsafe_callable_tools',
      title: 'Unsafe callable tools',
      description: "The DENY policies AGENT's grants reach: violations, and with all=true also the rows an expected exception authorizes. Same answer as `toolgate unsafe-tools`.",
      inputSchema: { type: 'object', properties: { agent: str('agent id'), all: { type: 'boolean', description: 'include authorized_but_governed rows' } }, required: ['agent'], additionalProperties: false },
      annotations: { title: 'Unsafe callable tools', ...ANNOTATIONS },
    },
    run: (estate, a) => unsafeTools(estate, a.agent as string, (a.all as boolean | undefined) ?? false),
  },
  {
    tool: {
      name: 'blast_radius',
      title: 'Blast radius',
      description: 'Which tools and agents a change to a resource or a policy affects (found: false for an unknown name). Same answer as `toolgate blast-radius`.',
      inputSchema: { type: 'object', properties: { target: str('resource URI or policy id') }, required: ['target'], additionalProperties: false },
      annotations: { title: 'Blast radius', ...ANNOTATIONS },
    },
    run: (estate, a) => blastRadius(estate, a.target as string),
  },
  {
    tool: {
      name: 'eligible_tools',
      title: 'Eligible tools',
      description: "AGENT's granted tools under a selector profile (strict by default), split into eligible and rejected with the reason: the agent's decisions in the policy bundle `toolgate compile --profile` writes.",
      inputSchema: {
        type: 'object',
        properties: { agent: str('agent id'), profile: { type: 'string', enum: [...PROFILES], description: 'selector profile (default strict)' } },
        required: ['agent'],
        additionalProperties: false,
      },
      annotations: { title: 'Eligible tools', ...ANNOTATIONS },
    },
    run: (estate, a) => eligibleTools(estate, a.agent as string, ((a.profile as string | undefined) ?? 'strict') as Profile),
  },
];

/** The eligible/rejected split of an agent's granted tools under a profile. */
export function eligibleTools(estate: Estate, agent: string, profile: Profile) {
  const grants = estate.grantsByAgent.get(agent);
  const found = estate.agents.has(agent);
  const decisions = [...(grants?.keys() ?? [])].sort(cmp).map((k) => decide(estate, agent, k, profile));
  return {
    agent,
    agent_found: found,
    profile,
    eligible: decisions.filter((d) => d.decision === 'eligible'),
    rejected: decisions.filter((d) => d.decision === 'rejected'),
  };
}

/** Names of the tools the server exposes. */
export const SERVE_TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.tool.name);

function checkArguments(spec: ToolSpec, args: unknown): string | undefined {
  if (args === undefined) args = {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'arguments must be an object';
  const schema = spec.tool.inputSchema as { properties: Record<string, { type: string; enum?: string[] }>; required: string[] };
  const a = args as Record<string, unknown>;
  for (const k of Object.keys(a)) if (!(k in schema.properties)) return `unknown argument ${JSON.stringify(k)}`;
  for (const k of schema.required) if (a[k] === undefined) return `missing argument ${JSON.stringify(k)}`;
  for (const [k, p] of Object.entries(schema.properties)) {
    const v = a[k];
    if (v === undefined) continue;
    if (p.type === 'string' && (typeof v !== 'string' || v === '')) return `argument ${JSON.stringify(k)} must be a non-empty string`;
    if (p.type === 'boolean' && typeof v !== 'boolean') return `argument ${JSON.stringify(k)} must be a boolean`;
    if (p.enum && !p.enum.includes(v as string)) return `argument ${JSON.stringify(k)} must be one of ${p.enum.join(', ')}`;
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

/**
 * An MCP server answering toolgate's queries. Connect it to any server transport.
 *
 * @example
 * const server = createServeServer({ load, serverInfo: { name: 'toolgate', version: '0.1.0' } });
 * await server.connect(new StdioServerTransport());
 */
export function createServeServer(options: ServeOptions): Server {
  const state = options.state ?? new GraphStateTracker();
  const server = new Server({ name: options.serverInfo.name, version: options.serverInfo.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS.map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const spec = TOOLS.find((t) => t.tool.name === req.params.name);
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(req.params.name)}; tools: ${SERVE_TOOL_NAMES.join(', ')}`);
    const bad = checkArguments(spec, req.params.arguments);
    if (bad) return failure({ error_kind: 'invalid_arguments', retryable: false, message: `${spec.tool.name}: ${bad}`, code: null });
    let loaded: LoadedEstate;
    try {
      loaded = options.load();
    } catch (e) {
      return failure(envelope(e));
    }
    try {
      const { estate } = loaded;
      const digests = { governance_digest: governanceDigest(estate.manifest.raw), catalog_digest: catalogDigest(estate.catalog), connectome_digest: null };
      const graph_state = state.next(estate, digests);
      const result = spec.run(estate, (req.params.arguments ?? {}) as Record<string, unknown>);
      const structured = { result, graph_state, governance_digest: digests.governance_digest, catalog_digest: digests.catalog_digest, notices: [...loaded.notices] };
      return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
    } catch (e) {
      return failure(envelope(e));
    }
  });
  return server;
}
