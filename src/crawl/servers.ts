/**
 * The servers file of `toolgate crawl` (schemas/servers.schema.json): which MCP servers to connect
 * to and how. Parsing validates with located errors; `resolveLaunch` turns one entry into what the
 * transport needs, expanding the two placeholders and reading secrets from the environment given.
 *
 * Placeholders (in `command`, `args`, `cwd` and literal `env` values): `${SERVERS_DIR}` is the servers file's folder and
 * `${CRAWL_TMPDIR}` a fresh empty folder the caller makes for one crawl. Nothing else is expanded,
 * so a `$` in an argument never pulls a secret out of the crawler's environment.
 */
import { isAbsolute, resolve } from 'node:path';
import type { CatalogRegistryIdentity } from '../catalog/types.ts';
import { ToolgateError, formatAt, type SourceAt } from '../errors.ts';
import { parseText, type ParsedDocument } from '../parse/document.ts';
import { validateAgainstSchema } from '../parse/schema.ts';

export interface EnvRef {
  readonly env: string;
}

interface SpecIdentity {
  /** Set for a server read from an MCP Registry server.json; copied into its catalog entry. */
  readonly registry?: CatalogRegistryIdentity;
}

export interface StdioServerSpec extends SpecIdentity {
  readonly name: string;
  readonly transport?: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string | EnvRef>>;
  readonly cwd?: string;
  readonly timeout_ms?: number;
}

export interface HttpServerSpec extends SpecIdentity {
  readonly name: string;
  readonly transport?: 'http';
  readonly url: string;
  /** From the environment (servers files allow only this), or a literal a server.json template gave. */
  readonly headers?: Readonly<Record<string, EnvRef | string>>;
  readonly timeout_ms?: number;
}

/** A server that cannot be launched on this machine: it is recorded as failed, saying why. */
export interface UnavailableServerSpec extends SpecIdentity {
  readonly name: string;
  readonly unavailable: string;
  readonly timeout_ms?: undefined;
}

export type ServerSpec = StdioServerSpec | HttpServerSpec | UnavailableServerSpec;

export interface ServersFile {
  readonly servers: readonly ServerSpec[];
}

export const PLACEHOLDERS = ['SERVERS_DIR', 'CRAWL_TMPDIR'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export function isHttpSpec(spec: ServerSpec): spec is HttpServerSpec {
  return 'url' in spec;
}

export function isUnavailableSpec(spec: ServerSpec): spec is UnavailableServerSpec {
  return 'unavailable' in spec;
}

/** Servers file text (YAML or JSON) -> validated ServersFile; every fault located as file:line:col. */
export function parseServersFile(file: string, text: string): ServersFile {
  const doc = parseText(file, text);
  validateAgainstSchema(doc, 'servers.schema.json', 'CONFIG_INVALID', 'servers file');
  const value = doc.value as ServersFile;
  checkEntries(doc, value);
  return value;
}

function checkEntries(doc: ParsedDocument, value: ServersFile): void {
  const faults: { at: SourceAt; text: string }[] = [];
  const names = new Map<string, number>();
  value.servers.forEach((s, i) => {
    const prev = names.get(s.name);
    if (prev !== undefined) faults.push({ at: doc.locate(['servers', i, 'name']), text: `server ${JSON.stringify(s.name)} is listed twice (first at index ${prev})` });
    else names.set(s.name, i);
    if (isHttpSpec(s) || isUnavailableSpec(s)) return;
    const fields: [readonly (string | number)[], string][] = [[['command'], s.command]];
    s.args?.forEach((a, j) => fields.push([['args', j], a]));
    if (s.cwd !== undefined) fields.push([['cwd'], s.cwd]);
    for (const [k, v] of Object.entries(s.env ?? {})) if (typeof v === 'string') fields.push([['env', k], v]);
    for (const [path, text] of fields) {
      for (const m of text.matchAll(/\$\{([^}]*)\}?/g)) {
        if (!(PLACEHOLDERS as readonly string[]).includes(m[1] ?? '') || !m[0].endsWith('}')) {
          faults.push({
            at: doc.locate(['servers', i, ...path]),
            text: `unknown placeholder ${JSON.stringify(m[0])} (expected one of ${PLACEHOLDERS.map((p) => `\${${p}}`).join(', ')})`,
          });
        }
      }
    }
  });
  if (faults.length > 0) {
    const first = faults[0]!;
    throw new ToolgateError(first.text.startsWith('server ') ? 'DUPLICATE_ENTRY' : 'CONFIG_INVALID', `invalid servers file: ${first.text}`, {
      at: [first.at],
      details: faults.length > 1 ? faults.map((f) => `${formatAt(f.at)}: ${f.text}`) : [],
    });
  }
}

/** What a transport needs to reach one server, plus the values that must never be shown. */
export type Launch =
  | {
      readonly kind: 'stdio';
      readonly name: string;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
      readonly secrets: readonly string[];
    }
  | {
      readonly kind: 'http';
      readonly name: string;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly secrets: readonly string[];
    };

export interface LaunchContext {
  /** Folder of the servers file (absolute). */
  readonly serversDir: string;
  /** A fresh empty folder for this crawl (absolute). */
  readonly crawlTmpDir: string;
  /** The crawler's environment, source of `{env: VAR}` values. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves one entry. Returns an error text (never containing a secret) instead of throwing when
 * an environment variable it needs is unset, so that server alone is reported as failed.
 */
export function resolveLaunch(spec: ServerSpec, ctx: LaunchContext): Launch | { readonly error: string } {
  if (isUnavailableSpec(spec)) return { error: spec.unavailable };
  if (isHttpSpec(spec)) {
    const headers: Record<string, string> = {};
    const secrets: string[] = [];
    for (const [header, ref] of Object.entries(spec.headers ?? {})) {
      if (typeof ref === 'string') {
        headers[header] = ref;
        secrets.push(ref);
        continue;
      }
      const v = ctx.env[ref.env];
      if (v === undefined) return { error: `header ${header}: environment variable ${ref.env} is not set` };
      headers[header] = v;
      secrets.push(v);
    }
    // Query values and userinfo of a URL often carry tokens: keep them out of error texts too.
    try {
      const u = new URL(spec.url);
      for (const v of u.searchParams.values()) secrets.push(v);
      if (u.password) secrets.push(u.password);
    } catch {
      return { error: 'url is not a valid URL' };
    }
    return { kind: 'http', name: spec.name, url: spec.url, headers, secrets };
  }
  const expand = (s: string): string => s.replace(/\$\{(SERVERS_DIR|CRAWL_TMPDIR)\}/g, (_m, p: Placeholder) => (p === 'SERVERS_DIR' ? ctx.serversDir : ctx.crawlTmpDir));
  const cwd = spec.cwd === undefined ? ctx.serversDir : resolve(ctx.serversDir, expand(spec.cwd));
  const rawCommand = expand(spec.command);
  const command = rawCommand.includes('/') && !isAbsolute(rawCommand) ? resolve(cwd, rawCommand) : rawCommand;
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, v] of Object.entries(spec.env ?? {})) {
    const value = typeof v === 'string' ? expand(v) : ctx.env[v.env];
    if (value === undefined) return { error: `env ${key}: environment variable ${(v as EnvRef).env} is not set` };
    env[key] = value;
    secrets.push(value);
  }
  return { kind: 'stdio', name: spec.name, command, args: (spec.args ?? []).map(expand), env, cwd, secrets };
}
