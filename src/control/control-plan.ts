/**
 * The control plan (the peer's `toolgraph.control-plan` schema_version 1): a body-free, upper-bound
 * DAG an orchestrator sends before a run: principals with qualified candidate tools, typed nodes
 * and edges (who decides each edge), per-agent-node bounds and run-level limits.
 *
 * Reading is strict where the contract is closed and lenient where it is additive: an unknown
 * major version or kind is refused; unknown same-major fields are ignored (and never copied into a
 * result); fields that would carry a body (prompts, outputs, patches, commands, credentials,
 * memory) are refused wherever they appear, as are credential-shaped strings and absolute
 * filesystem paths. Every refusal names the file and the JSON pointer of the fault.
 *
 * Pure: bytes in, a typed plan out. The caller (cli/) reads the file.
 */
import { ToolgateError, type SourceAt } from '../errors.ts';
import { credentialShape } from '../governance/credential-shape.ts';
import { parseText, pointer, type PathSegment } from '../parse/document.ts';

export const CONTROL_PLAN_KIND = 'toolgraph.control-plan';

export const CONTROL_NODE_KINDS = ['start', 'agent', 'router', 'fanout', 'join', 'validator', 'end'] as const;
export const CONTROL_EDGE_KINDS = ['always', 'success', 'failure', 'fallback', 'fanout', 'join'] as const;
export const DECIDERS = ['code', 'model', 'human'] as const;

export type ControlNodeKind = (typeof CONTROL_NODE_KINDS)[number];
export type ControlEdgeKind = (typeof CONTROL_EDGE_KINDS)[number];
export type Decider = (typeof DECIDERS)[number];

export interface PlanPrincipal {
  readonly id: string;
  readonly candidate_tools: readonly string[];
}

export interface PlanNode {
  readonly id: string;
  readonly kind: ControlNodeKind;
  readonly principals: readonly string[];
  readonly agent_call: boolean;
  readonly max_invocations?: number;
  readonly max_parallelism?: number;
  readonly timeout_seconds?: number;
}

export interface PlanEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: ControlEdgeKind;
  readonly decided_by: Decider;
  readonly max_fan_out?: number;
}

export interface ControlPlan {
  readonly run_id: string;
  readonly producer: { readonly name: string; readonly version: string };
  readonly principals: readonly PlanPrincipal[];
  readonly nodes: readonly PlanNode[];
  readonly edges: readonly PlanEdge[];
  readonly limits: { readonly maximum_agent_calls: number; readonly maximum_parallelism: number; readonly maximum_cycles: 0 };
}

/** Field names that would carry a body; refused at any depth (the contract is body-free). */
const BODY_FIELDS = new Set([
  'prompt', 'prompts', 'system_prompt', 'instructions', 'messages', 'body', 'content', 'output', 'outputs', 'result', 'results',
  'stdout', 'stderr', 'patch', 'patches', 'diff', 'command', 'commands', 'argv', 'env', 'credential', 'credentials', 'secret',
  'secrets', 'token', 'password', 'api_key', 'memory', 'memories', 'path', 'paths', 'cwd', 'file', 'files',
]);

const LIMITS = { principals: 256, nodes: 4096, edges: 16384, candidates: 4096, nodePrincipals: 256 } as const;
const ID = /^\S{1,256}$/;
const NAME = /^\S{1,128}$/;
const QUALIFIED = /^[^:\s]+::[^:\s]+$/;
const ABSOLUTE_PATH = /(?:^|[\s=])(?:\/(?:home|root|etc|usr|var|tmp|Users|opt|srv|mnt|private)\b|~\/|[A-Za-z]:[\\/])/;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

class Reader {
  constructor(
    private readonly file: string,
    private readonly locate: (path: readonly PathSegment[]) => SourceAt,
  ) {}

  fail(path: readonly PathSegment[], message: string): never {
    const where = pointer(path);
    throw new ToolgateError('SCHEMA_INVALID', `${this.file}: control plan${where ? ` at ${where}` : ''}: ${message}`, { at: [{ ...this.locate(path), path: where }] });
  }

  object(v: Json | undefined, path: readonly PathSegment[]): { [k: string]: Json } {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, 'must be an object');
    return v;
  }

  array(v: Json | undefined, path: readonly PathSegment[], min: number, max: number): Json[] {
    if (!Array.isArray(v)) this.fail(path, 'must be an array');
    if (v.length < min) this.fail(path, `must have at least ${min} item${min === 1 ? '' : 's'}`);
    if (v.length > max) this.fail(path, `must have at most ${max} items, has ${v.length}`);
    return v;
  }

  string(v: Json | undefined, path: readonly PathSegment[], re: RegExp, what: string): string {
    if (typeof v !== 'string') this.fail(path, 'must be a string');
    if (!re.test(v)) this.fail(path, `must be ${what}`);
    return v;
  }

  int(v: Json | undefined, path: readonly PathSegment[], min: number): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) this.fail(path, 'must be an integer');
    if (v < min) this.fail(path, `must be at least ${min}`);
    return v;
  }

  oneOf<T extends string>(v: Json | undefined, path: readonly PathSegment[], allowed: readonly T[]): T {
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) this.fail(path, `must be one of ${allowed.join(', ')}`);
    return v as T;
  }

  /** Refuses body-shaped field names, credential-shaped strings and absolute paths anywhere in the document. */
  scan(v: Json, path: PathSegment[]): void {
    if (typeof v === 'string') {
      const kind = credentialShape(v);
      if (kind !== undefined) this.fail(path, `holds a credential-shaped value (${kind}); a control plan carries no credentials`);
      if (ABSOLUTE_PATH.test(v)) this.fail(path, 'holds an absolute filesystem path; a control plan carries no paths');
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((x, i) => this.scan(x, [...path, i]));
      return;
    }
    if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (BODY_FIELDS.has(k.toLowerCase())) this.fail([...path, k], `field ${JSON.stringify(k)} would carry a body; the control plan is body-free`);
        this.scan(x, [...path, k]);
      }
    }
  }
}

function unique(r: Reader, items: readonly string[], path: readonly PathSegment[], what: string): void {
  const seen = new Set<string>();
  items.forEach((s, i) => {
    if (seen.has(s)) r.fail([...path, i], `duplicate ${what} ${JSON.stringify(s)}`);
    seen.add(s);
  });
}

/** Parses and checks a control plan; throws PARSE_ERROR or SCHEMA_INVALID naming file and pointer. */
export function readControlPlan(file: string, text: string): ControlPlan {
  const doc = parseText(file, text, 'json');
  const r = new Reader(file, (p) => doc.locate(p));
  const root = r.object(doc.value as Json, []);
  // Version and kind first: an unknown major version is refused before anything else is judged.
  if (root.schema_version !== 1) r.fail(['schema_version'], `unsupported schema_version ${JSON.stringify(root.schema_version ?? null)} (this reader knows 1)`);
  if (root.kind !== CONTROL_PLAN_KIND) r.fail(['kind'], `must be ${JSON.stringify(CONTROL_PLAN_KIND)}`);
  r.scan(root, []);
  for (const k of ['run_id', 'producer', 'principals', 'nodes', 'edges', 'limits']) if (!(k in root)) r.fail([k], 'is required');

  const run_id = r.string(root.run_id, ['run_id'], ID, '1 to 256 characters without whitespace');
  const prod = r.object(root.producer, ['producer']);
  const producer = { name: r.string(prod.name, ['producer', 'name'], NAME, '1 to 128 characters without whitespace'), version: r.string(prod.version, ['producer', 'version'], NAME, '1 to 128 characters without whitespace') };

  const principals = r.array(root.principals, ['principals'], 1, LIMITS.principals).map((p, i): PlanPrincipal => {
    const at = ['principals', i];
    const o = r.object(p, at);
    const id = r.string(o.id, [...at, 'id'], ID, '1 to 256 characters without whitespace');
    const tools = r.array(o.candidate_tools, [...at, 'candidate_tools'], 1, LIMITS.candidates).map((t, j) => r.string(t, [...at, 'candidate_tools', j], QUALIFIED, 'a qualified server::tool key'));
    unique(r, tools, [...at, 'candidate_tools'], 'candidate tool');
    return { id, candidate_tools: tools };
  });
  unique(r, principals.map((p) => p.id), ['principals'], 'principal id');
  const principalIds = new Set(principals.map((p) => p.id));

  const nodes = r.array(root.nodes, ['nodes'], 1, LIMITS.nodes).map((n, i): PlanNode => {
    const at = ['nodes', i];
    const o = r.object(n, at);
    const id = r.string(o.id, [...at, 'id'], ID, '1 to 256 characters without whitespace');
    const kind = r.oneOf(o.kind, [...at, 'kind'], CONTROL_NODE_KINDS);
    const ps = r.array(o.principals, [...at, 'principals'], 0, LIMITS.nodePrincipals).map((p, j) => {
      const s = r.string(p, [...at, 'principals', j], ID, '1 to 256 characters without whitespace');
      if (!principalIds.has(s)) r.fail([...at, 'principals', j], `names principal ${JSON.stringify(s)}, which the plan does not declare`);
      return s;
    });
    unique(r, ps, [...at, 'principals'], 'principal');
    if (typeof o.agent_call !== 'boolean') r.fail([...at, 'agent_call'], 'must be a boolean');
    if (kind === 'agent') {
      if (o.agent_call !== true) r.fail([...at, 'agent_call'], 'must be true on an agent node');
      for (const k of ['max_invocations', 'max_parallelism', 'timeout_seconds']) if (!(k in o)) r.fail([...at, k], 'is required on an agent node');
      return { id, kind, principals: ps, agent_call: true, max_invocations: r.int(o.max_invocations, [...at, 'max_invocations'], 1), max_parallelism: r.int(o.max_parallelism, [...at, 'max_parallelism'], 1), timeout_seconds: r.int(o.timeout_seconds, [...at, 'timeout_seconds'], 1) };
    }
    if (o.agent_call !== false) r.fail([...at, 'agent_call'], `must be false on a ${kind} node`);
    for (const k of ['max_invocations', 'max_parallelism', 'timeout_seconds']) if (k in o) r.fail([...at, k], `is allowed only on an agent node, not on a ${kind} node`);
    if (kind === 'validator') {
      if (!('validator_scope' in o)) r.fail([...at, 'validator_scope'], 'is required on a validator node');
    }
    if ('validator_scope' in o && o.validator_scope !== 'workspace_result') r.fail([...at, 'validator_scope'], 'must be "workspace_result"');
    return { id, kind, principals: ps, agent_call: false };
  });
  unique(r, nodes.map((n) => n.id), ['nodes'], 'node id');

  const edges = r.array(root.edges, ['edges'], 0, LIMITS.edges).map((e, i): PlanEdge => {
    const at = ['edges', i];
    const o = r.object(e, at);
    const from = r.string(o.from, [...at, 'from'], ID, '1 to 256 characters without whitespace');
    const to = r.string(o.to, [...at, 'to'], ID, '1 to 256 characters without whitespace');
    const kind = r.oneOf(o.kind, [...at, 'kind'], CONTROL_EDGE_KINDS);
    const decided_by = r.oneOf(o.decided_by, [...at, 'decided_by'], DECIDERS);
    if ('max_fan_out' in o) {
      if (kind !== 'fanout') r.fail([...at, 'max_fan_out'], `is allowed only on a fanout edge, not on a ${kind} edge`);
      return { from, to, kind, decided_by, max_fan_out: r.int(o.max_fan_out, [...at, 'max_fan_out'], 1) };
    }
    return { from, to, kind, decided_by };
  });

  const lim = r.object(root.limits, ['limits']);
  for (const k of ['maximum_agent_calls', 'maximum_parallelism', 'maximum_cycles']) if (!(k in lim)) r.fail(['limits', k], 'is required');
  if (lim.maximum_cycles !== 0) r.fail(['limits', 'maximum_cycles'], 'must be 0: control cycles are not supported');
  const limits = { maximum_agent_calls: r.int(lim.maximum_agent_calls, ['limits', 'maximum_agent_calls'], 1), maximum_parallelism: r.int(lim.maximum_parallelism, ['limits', 'maximum_parallelism'], 1), maximum_cycles: 0 as const };

  return { run_id, producer, principals, nodes, edges, limits };
}
