/**
 * What the gateway entrypoints (rego/toolgate/gateways/*.rego, docs/gateways.md) read from the data
 * document besides the per-agent decisions:
 *
 * - `identity`: the manifest's `identity:` section (schemas/governance.schema.json) with defaults
 *   filled in, so the Rego never guesses: `{sources, by_gateway, principals, max_body_bytes}`
 *   (`by_gateway`: per gateway, its sources and the headers they read). No section means
 *   no source, and every gateway call is AGENT_UNAUTHENTICATED (never a default agent).
 * - `tools_by_name`: bare MCP tool name -> the qualified keys that expose it (sorted). A gateway
 *   sees the name the upstream server advertises; it resolves only when exactly one server exposes
 *   it (the README's rule: otherwise AMBIGUOUS_TOOL, never guessed).
 * - `contracts`: per exposed tool, the fields its `tool_contract_digest` covers, so an entrypoint
 *   given the tool object a server lists now can compare it field by field (CONTRACT_CHANGED).
 *   Compared structurally, not re-hashed in Rego: OPA's json.marshal escapes `<`, `>` and `&`
 *   and formats numbers unlike RFC 8785, so a digest computed in Rego would not reproduce ours.
 * - `resources`: per catalog resource URI (and governed URI a catalog template expands to), its
 *   server and the ALLOW / DENY policies governing it, the templates' included.
 * - `resource_templates`: the catalog's resource templates, each with an RE2 pattern and its policies.
 * - `prompts` / `prompts_by_name`: the catalog's prompts, qualified `server::name`.
 */
import { RE2JS } from 're2js';
import { ToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import { cmp } from '../governance/estate.ts';
import type { ExposedTool } from './policy-bundle.ts';
import { toolContract } from './digests.ts';
import { resourceKey } from '../governance/resource-uri.ts';
import { uriTemplatePattern } from './uri-template-pattern.ts';

export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

type RawSource = { kind: string } & Record<string, unknown>;
interface RawIdentity {
  sources?: RawSource[];
  principals?: Record<string, string>;
  max_body_bytes?: number;
}

const ALL_GATEWAYS = ['contextforge', 'docker', 'envoy', 'kong'];

/** One identity source with every default filled in (what the Rego reads). */
function normaliseSource(s: RawSource): Record<string, unknown> {
  const gateways = Array.isArray(s.gateways) ? [...(s.gateways as string[])].sort() : ALL_GATEWAYS;
  switch (s.kind) {
    case 'header':
      return { kind: 'header', name: s.name, gateways };
    case 'jwt':
      return {
        kind: 'jwt',
        claim: String(s.claim ?? 'sub').split('.'),
        from: s.from ?? 'authorization',
        metadata_key: s.metadata_key ?? 'jwt_payload',
        verified_by: s.verified_by,
        constraints: {
          ...(s.jwks !== undefined ? { cert: s.jwks } : {}),
          ...(s.issuer !== undefined ? { iss: s.issuer } : {}),
          ...(s.audience !== undefined ? { aud: s.audience } : {}),
        },
        gateways,
      };
    case 'spiffe':
      return { kind: 'spiffe', prefix: `spiffe://${String(s.trust_domain)}/`, gateways };
    case 'kong_consumer':
      return { kind: 'kong_consumer', field: s.field ?? 'username', gateways };
    case 'contextforge_user':
      return { kind: 'contextforge_user', context_key: s.context_key ?? null, gateways };
    default:
      return { kind: s.kind, gateways };
  }
}

/** The `identity` document; faults (a principal mapped to an undeclared agent, OPA verification without keys) are coded errors. */
export function identityDocument(estate: Estate): Record<string, unknown> {
  const raw = ((estate.manifest.raw as { identity?: RawIdentity } | null)?.identity ?? {}) as RawIdentity;
  const sources = raw.sources ?? [];
  sources.forEach((s, i) => {
    if (s.kind === 'jwt' && s.verified_by === 'opa' && s.jwks === undefined) {
      throw new ToolgateError('MANIFEST_INVALID', 'identity source jwt with verified_by: opa needs jwks (the keys OPA verifies the token with)', { at: [estate.manifest.locate(['identity', 'sources', i])] });
    }
    if (s.kind === 'jwt' && s.from === 'envoy_jwt_authn' && s.verified_by !== 'gateway') {
      throw new ToolgateError('MANIFEST_INVALID', 'identity source jwt from envoy_jwt_authn is verified by Envoy: write verified_by: gateway', { at: [estate.manifest.locate(['identity', 'sources', i])] });
    }
  });
  // Keyed by names from the inputs: no prototype, so an id "__proto__" is an ordinary key.
  const principals: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [p, agent] of Object.entries(raw.principals ?? {}).sort(([a], [b]) => cmp(a, b))) {
    if (!estate.agents.has(agent)) {
      throw new ToolgateError('DANGLING_REFERENCE', `identity principal ${JSON.stringify(p)} names unknown agent ${JSON.stringify(agent)}`, { at: [estate.manifest.locate(['identity', 'principals', p])] });
    }
    principals[p] = agent;
  }
  const normalised = sources.map(normaliseSource);
  return { sources: normalised, by_gateway: sourcesByGateway(normalised), principals, max_body_bytes: raw.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES };
}

/**
 * Per gateway, the sources it accepts and the request headers they read. Precomputed because OPA
 * converts every data value a decision reads: an entrypoint reading only its own small part stays
 * cheap, where filtering all sources per request would not.
 */
function sourcesByGateway(sources: readonly Record<string, unknown>[]): Record<string, { sources: Record<string, unknown>[]; headers: string[] }> {
  const out: Record<string, { sources: Record<string, unknown>[]; headers: string[] }> = {};
  for (const gateway of ALL_GATEWAYS) {
    const own = sources.filter((s) => (s.gateways as string[]).includes(gateway));
    const headers = new Set<string>();
    for (const s of own) {
      if (s.kind === 'header') headers.add(String(s.name));
      if (s.kind === 'jwt') headers.add('authorization');
    }
    out[gateway] = { sources: own, headers: [...headers].sort(cmp) };
  }
  return out;
}

/** Bare tool name -> qualified keys, sorted. */
export function toolsByName(tools: readonly ExposedTool[]): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const t of tools) (out[t.name] ??= []).push(t.tool_key);
  for (const k of Object.keys(out)) out[k]!.sort(cmp);
  return out;
}

/** Per exposed tool, the contract fields without server and name (those are the key). */
export function toolContracts(estate: Estate, tools: readonly ExposedTool[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const t of tools) {
    const contract = estate.tools.get(t.tool_key)?.contract;
    if (contract === undefined) continue;
    const { server: _s, name: _n, ...fields } = toolContract(t.server, contract);
    out[t.tool_key] = fields;
  }
  return out;
}

/** The ALLOW / DENY policies bound to a resource key. */
function resourcePolicies(estate: Estate, key: string): { allow: Set<string>; deny: Set<string> } {
  const allow = new Set<string>();
  const deny = new Set<string>();
  for (const b of estate.bindingsByTarget.get(key) ?? []) {
    const effect = estate.policies.get(b.policy)?.effect;
    if (effect === 'DENY') deny.add(b.policy);
    else if (effect === 'ALLOW') allow.add(b.policy);
  }
  return { allow, deny };
}

interface TemplateEntry {
  template: string;
  pattern: string;
  server: string;
  allow: string[];
  deny: string[];
}

/**
 * Catalog resources with the policies that govern them; catalog resource templates; catalog
 * prompts, qualified.
 *
 * A template is governed by what is bound to its URI template string, and that governance covers
 * every URI it expands to: a catalog resource, or a governed URI the catalog does not list, that
 * matches a template gets the template's policies added to its own (so a DENY on
 * `file:///srv/app/{path}` reaches `file:///srv/app/.env`, and a DENY on that file is found when
 * it is read through the template). A URI matching only a template is decided in Rego from
 * `resource_templates` (`pattern`: uri-template-pattern.ts).
 */
export function resourcesAndPrompts(estate: Estate): { resources: Record<string, unknown>; resource_templates: TemplateEntry[]; prompts: Record<string, unknown>; prompts_by_name: Record<string, string[]> } {
  const resources: Record<string, { server: string; allow: string[]; deny: string[]; templates?: string[] }> = Object.create(null) as Record<string, never>;
  const prompts: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const promptsByName: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const templates: (TemplateEntry & { regex: RE2JS })[] = [];
  const servers = [...estate.catalog.servers].sort((a, b) => cmp(a.name, b.name));
  for (const server of servers) {
    for (const t of server.resourceTemplates ?? []) {
      const { allow, deny } = resourcePolicies(estate, resourceKey(t.uriTemplate));
      const pattern = uriTemplatePattern(t.uriTemplate);
      templates.push({ template: t.uriTemplate, pattern, server: server.name, allow: [...allow].sort(cmp), deny: [...deny].sort(cmp), regex: RE2JS.compile(pattern) });
    }
  }
  templates.sort((a, b) => cmp(a.template, b.template) || cmp(a.server, b.server));
  const addResource = (uri: string, server: string | null) => {
    // Bindings are keyed by the normalised URI; the catalog may spell it another way.
    const { allow, deny } = resourcePolicies(estate, resourceKey(uri));
    const via = templates.filter((t) => t.regex.matches(uri));
    if (server === null && via.length === 0) return;
    for (const t of via) {
      for (const p of t.allow) allow.add(p);
      for (const p of t.deny) deny.add(p);
    }
    resources[uri] = {
      server: server ?? via[0]!.server,
      allow: [...allow].sort(cmp),
      deny: [...deny].sort(cmp),
      ...(via.length > 0 ? { templates: via.map((t) => t.template) } : {}),
    };
  };
  for (const server of servers) {
    for (const r of server.resources ?? []) addResource(r.uri, server.name);
    for (const p of server.prompts ?? []) {
      const key = `${server.name}::${p.name}`;
      prompts[key] = { server: server.name, name: p.name };
      (promptsByName[p.name] ??= []).push(key);
    }
  }
  // Governed URIs the catalog does not list, reachable through a template.
  for (const key of [...estate.bindingsByTarget.keys()].sort(cmp)) {
    const isResource = estate.bindingsByTarget.get(key)!.some((b) => b.target_kind === 'resource');
    if (isResource && resources[key] === undefined && !templates.some((t) => t.template === key)) addResource(key, null);
  }
  for (const k of Object.keys(promptsByName)) promptsByName[k]!.sort(cmp);
  return { resources, resource_templates: templates.map(({ regex: _r, ...t }) => t), prompts, prompts_by_name: promptsByName };
}
