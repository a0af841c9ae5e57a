/**
 * An MCP Registry `server.json` (schema 2025-09-29 or later,
 * https://github.com/modelcontextprotocol/registry/tree/main/docs/reference/server-json) as a crawl
 * input: the server's identity, and the first of its packages or remotes that can run here, as a
 * servers-file entry (servers.ts).
 *
 * What runs: an npm package with stdio transport, through `npx --no --offline -- NAME@VERSION` in
 * the crawler's working folder, so the pinned version is taken from that project's node_modules
 * (or npm's cache) and nothing is ever downloaded; a streamable-http remote. What does not: pypi
 * and oci packages (no uvx or container runtime is run), other registry types, packages served
 * over HTTP (they would have to be started and then reached on a port), and SSE. A server with
 * nothing runnable becomes a failed entry that names each option and why.
 *
 * Inputs (environment variables, headers, arguments, `{name}` in a value or URL): the crawler's
 * environment variable of the same name wins, and a secret (`isSecret`) comes only from there:
 * an environment variable is passed by reference, a header filled from a template is handed to the
 * crawler as a secret to redact, and a secret is never put on a command line or in a URL, so no
 * secret reaches a spec's arguments, an error text or the catalog. A non-secret falls back to its
 * `value`, then `default`. A required input with no value makes that option unrunnable.
 */
import type { CatalogRegistryIdentity } from '../catalog/types.ts';
import { ToolgateError } from '../errors.ts';
import { parseText } from '../parse/document.ts';
import { validateAgainstSchema } from '../parse/schema.ts';
import type { EnvRef, ServerSpec } from './servers.ts';

export interface RegistryInput {
  readonly value?: string;
  readonly default?: string;
  readonly isSecret?: boolean;
  readonly isRequired?: boolean;
  readonly variables?: Readonly<Record<string, RegistryInput>>;
}

export interface RegistryKeyValue extends RegistryInput {
  readonly name: string;
}

export interface RegistryArgument extends RegistryInput {
  readonly type: 'positional' | 'named';
  readonly name?: string;
  readonly valueHint?: string;
}

export interface RegistryTransport {
  readonly type: string;
  readonly url?: string;
  readonly headers?: readonly RegistryKeyValue[];
}

export interface RegistryPackage {
  readonly registryType: string;
  readonly identifier: string;
  readonly version?: string;
  readonly runtimeHint?: string;
  readonly transport: RegistryTransport;
  readonly runtimeArguments?: readonly RegistryArgument[];
  readonly packageArguments?: readonly RegistryArgument[];
  readonly environmentVariables?: readonly RegistryKeyValue[];
}

export interface RegistryServer {
  readonly $schema?: string;
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly repository?: { readonly url: string; readonly source: string; readonly id?: string; readonly subfolder?: string };
  readonly packages?: readonly RegistryPackage[];
  readonly remotes?: readonly RegistryTransport[];
}

/** The first schema release with today's field names (camelCase since 2025-09-16, publisher fields settled 2025-09-29). */
export const OLDEST_SCHEMA = '2025-09-29';

/** server.json text -> validated RegistryServer; faults located as file:line:col. */
export function parseRegistryServerJson(file: string, text: string): RegistryServer {
  const doc = parseText(file, text, 'json');
  validateAgainstSchema(doc, 'registry-server.schema.json', 'CONFIG_INVALID', 'server.json');
  const server = doc.value as RegistryServer;
  const release = /\/schemas\/(\d{4}-\d{2}-\d{2})\/server\.schema\.json$/.exec(server.$schema ?? '')?.[1];
  if (release !== undefined && release < OLDEST_SCHEMA) {
    throw new ToolgateError('CONFIG_INVALID', `${file}: server.json schema ${release} is older than ${OLDEST_SCHEMA} (its field names differ); republish it with a current schema`, {
      at: [doc.locate(['$schema'])],
    });
  }
  return server;
}

export interface RegistryContext {
  /** The crawler's environment: where every input, and every secret, comes from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The crawler's working folder (absolute): npx runs there. */
  readonly cwd: string;
}

type Value = { readonly value: string | EnvRef } | { readonly missing: string } | { readonly absent: true };

/**
 * `{name}` in a value or URL: the environment first, then a non-secret variable's value or default;
 * unknown names stay as written. Where the text ends up on a command line or in a URL (`inSecretSafePlace`
 * false), a secret variable is refused: a process list or a logged URL would show it.
 */
function fillTemplate(text: string, variables: Readonly<Record<string, RegistryInput>> | undefined, ctx: RegistryContext, inSecretSafePlace: boolean): { text: string } | { missing: string } {
  let missing: string | undefined;
  const out = text.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, id: string) => {
    const v = variables?.[id];
    if (v?.isSecret && !inSecretSafePlace) {
      missing ??= `secret {${id}} would be visible on a command line or in a URL; toolgate crawl does not put it there`;
      return whole;
    }
    const fromEnv = ctx.env[id];
    if (fromEnv !== undefined) return fromEnv;
    if (v === undefined) return whole;
    if (v.isSecret) {
      missing ??= `secret {${id}} needs environment variable ${id}`;
      return whole;
    }
    const literal = v.value ?? v.default;
    if (literal === undefined) {
      missing ??= `{${id}} has no value (set environment variable ${id})`;
      return whole;
    }
    return literal;
  });
  return missing === undefined ? { text: out } : { missing };
}

/** The value of a named input (environment variable or header): see the module comment. */
function namedValue(what: string, input: RegistryKeyValue, ctx: RegistryContext): Value {
  if (ctx.env[input.name] !== undefined) return { value: { env: input.name } };
  // A template such as `Bearer {token}`: its secret variables come from the environment.
  if (input.value !== undefined) {
    const filled = fillTemplate(input.value, input.variables, ctx, true);
    return 'missing' in filled ? { missing: `${what} ${input.name}: ${filled.missing}` } : { value: filled.text };
  }
  if (input.isSecret) return input.isRequired ? { missing: `${what} ${input.name} is a required secret: set environment variable ${input.name}` } : { absent: true };
  if (input.default !== undefined) return { value: input.default };
  return input.isRequired ? { missing: `${what} ${input.name} is required: set environment variable ${input.name}` } : { absent: true };
}

/** Command-line words for the package's arguments, or why they cannot be formed. */
function argumentWords(args: readonly RegistryArgument[], ctx: RegistryContext): { words: string[] } | { missing: string } {
  const words: string[] = [];
  for (const a of args) {
    const label = a.type === 'named' ? `argument ${a.name ?? '?'}` : `positional argument ${a.valueHint ?? a.value ?? '?'}`;
    let value: string | undefined;
    if (a.value !== undefined) {
      const filled = fillTemplate(a.value, a.variables, ctx, false);
      if ('missing' in filled) return { missing: `${label}: ${filled.missing}` };
      value = filled.text;
    } else if (a.valueHint !== undefined && ctx.env[a.valueHint] !== undefined && !a.isSecret) {
      value = ctx.env[a.valueHint];
    } else {
      value = a.default;
    }
    if (a.type === 'named') {
      if (a.name === undefined) return { missing: `${label} has no name` };
      words.push(a.name, ...(value === undefined ? [] : [value]));
    } else if (value !== undefined) {
      words.push(value);
    } else if (a.isRequired || a.value === undefined) {
      return { missing: `${label} has no value${a.valueHint ? ` (set environment variable ${a.valueHint})` : ''}` };
    }
  }
  return { words };
}

type Option = { readonly spec: ServerSpec } | { readonly cannot: string };

function packageOption(server: RegistryServer, p: RegistryPackage, identity: CatalogRegistryIdentity, ctx: RegistryContext): Option {
  const label = `${p.registryType} package ${p.identifier}${p.version ? `@${p.version}` : ''}`;
  if (p.registryType === 'pypi') return { cannot: `${label}: not launched here (toolgate crawl runs no uvx or pip)` };
  if (p.registryType === 'oci') return { cannot: `${label}: not launched here (toolgate crawl runs no container runtime)` };
  if (p.registryType !== 'npm') return { cannot: `${label}: registry type ${JSON.stringify(p.registryType)} is not launched by toolgate crawl` };
  if (p.transport.type !== 'stdio') return { cannot: `${label}: transport ${JSON.stringify(p.transport.type)} (crawl launches stdio packages only)` };
  if (p.version === undefined) return { cannot: `${label}: no version (crawl runs only a pinned version)` };
  const env: Record<string, string | EnvRef> = {};
  for (const v of p.environmentVariables ?? []) {
    const r = namedValue('environment variable', v, ctx);
    if ('missing' in r) return { cannot: `${label}: ${r.missing}` };
    if ('value' in r) env[v.name] = r.value;
  }
  const args = argumentWords(p.packageArguments ?? [], ctx);
  if ('missing' in args) return { cannot: `${label}: ${args.missing}` };
  // runtimeArguments are not passed: they are npx's own flags (often -y, which would download).
  return {
    spec: {
      name: server.name,
      command: 'npx',
      args: ['--no', '--offline', '--', `${p.identifier}@${p.version}`, ...args.words],
      env,
      cwd: ctx.cwd,
      registry: { ...identity, launched: { registryType: p.registryType, identifier: p.identifier, version: p.version } },
    },
  };
}

function remoteOption(server: RegistryServer, r: RegistryTransport, identity: CatalogRegistryIdentity, ctx: RegistryContext): Option {
  const label = `${r.type} remote ${r.url ?? '(no url)'}`;
  if (r.type !== 'streamable-http') return { cannot: `${label}: transport ${JSON.stringify(r.type)} is not crawled (streamable-http only)` };
  if (r.url === undefined) return { cannot: `${label}: no url` };
  const url = fillTemplate(r.url, undefined, ctx, false);
  if ('missing' in url) return { cannot: `${label}: ${url.missing}` };
  if (/\{[A-Za-z0-9_.-]+\}/.test(url.text)) return { cannot: `${label}: the url template has a variable the environment does not set` };
  const headers: Record<string, string | EnvRef> = {};
  for (const h of r.headers ?? []) {
    const v = namedValue('header', h, ctx);
    if ('missing' in v) return { cannot: `${label}: ${v.missing}` };
    if ('value' in v) headers[h.name] = v.value;
  }
  return { spec: { name: server.name, url: url.text, headers, registry: { ...identity, launched: { remote: r.url, type: r.type } } } };
}

/** The server's identity as the catalog records it. */
export function registryIdentity(server: RegistryServer): CatalogRegistryIdentity {
  const repo = server.repository;
  return {
    name: server.name,
    version: server.version,
    ...(repo
      ? { repository: { url: repo.url, source: repo.source, ...(repo.id !== undefined ? { id: repo.id } : {}), ...(repo.subfolder !== undefined ? { subfolder: repo.subfolder } : {}) } }
      : {}),
  };
}

/**
 * The crawl entry for a server.json: the first package, then remote, that can run here, named by
 * the server's reverse-DNS name; or an unavailable entry saying why each option cannot.
 *
 * @example
 * registryServerSpec(parseRegistryServerJson('server.json', text), { env: process.env, cwd: process.cwd() })
 * // { name: 'io.github.acme/weather', command: 'npx', args: ['--no', '--offline', '--', '@acme/weather@1.2.0'], ... }
 */
export function registryServerSpec(server: RegistryServer, ctx: RegistryContext): ServerSpec {
  const identity = registryIdentity(server);
  const reasons: string[] = [];
  const options: [string, () => Option][] = [
    ...(server.packages ?? []).map((p, i): [string, () => Option] => [`packages[${i}]`, () => packageOption(server, p, identity, ctx)]),
    ...(server.remotes ?? []).map((r, i): [string, () => Option] => [`remotes[${i}]`, () => remoteOption(server, r, identity, ctx)]),
  ];
  for (const [where, option] of options) {
    const o = option();
    if ('spec' in o) return o.spec;
    reasons.push(`${where} (${o.cannot})`);
  }
  const why = reasons.length > 0 ? `nothing in server.json can be launched here: ${reasons.join('; ')}` : 'server.json lists no packages or remotes';
  return { name: server.name, unavailable: why, registry: identity };
}
