/**
 * Shared by the gateway tests: the fixture estate (test/fixtures/gateways/estate, the quickstart
 * with an identity section) compiled once per profile, the shipped enforcement Rego under the
 * builtin engine, the fixtures, and how each gateway's answer reads as {allowed, reason, status}.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { compileModules, fromJSON, toJSON, type RegoPolicy } from '../../../src/rego/index.ts';
import { enforcementRego } from '../../../src/cli/commands/compile.ts';

export const FIXTURES = 'test/fixtures/gateways';
export const GATEWAYS = ['envoy', 'kong', 'contextforge', 'docker'] as const;
export type Gateway = (typeof GATEWAYS)[number];

/** The query each gateway is configured with (docs/gateways.md). */
export const ENTRYPOINT: Record<Gateway, string> = {
  envoy: 'toolgate/gateways/envoy/response',
  kong: 'toolgate/gateways/kong/response',
  contextforge: 'toolgate/gateways/contextforge/allow_tool_pre_invoke',
  docker: 'toolgate/gateways/docker/rejection',
};

export interface Fixture {
  readonly gateway: Gateway;
  readonly name: string;
  readonly description: string;
  readonly input: unknown;
  readonly expect: { allowed: boolean; reason: string | null; status?: number; visible_tools?: string[] };
}

export function fixtures(): Fixture[] {
  return GATEWAYS.flatMap((gateway) =>
    readdirSync(join(FIXTURES, gateway))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => {
        const v = JSON.parse(readFileSync(join(FIXTURES, gateway, f), 'utf8'));
        return { gateway, name: f.replace(/\.json$/, ''), description: v.description, input: v.input, expect: v.expect };
      }),
  );
}

export interface CompiledEstate {
  readonly out: string;
  readonly bundle: string;
  readonly data: Record<string, unknown>;
}

/** Compiles a manifest (default: the fixture estate) with the quickstart catalog. */
export async function compileEstate(options: { profile?: string; manifest?: string; catalog?: string; example?: string } = {}): Promise<CompiledEstate> {
  const out = mkdtempSync(join(tmpdir(), 'toolgate-gw-'));
  const source = options.example ? ['--example', options.example] : ['--manifest', options.manifest ?? join(FIXTURES, 'estate', 'governance.yaml'), '--catalog', options.catalog ?? 'examples/quickstart/catalog.json'];
  const r = await runCli(['compile', ...source, '--profile', options.profile ?? 'strict', '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
  if (r.code !== 0) throw new Error(`compile failed: ${r.stderr}`);
  return { out, bundle: join(out, 'bundle.tar.gz'), data: JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) };
}

/**
 * The fixture estate compiled and served by `opa run --server --bundle` for the tests of the
 * describe block that calls this (its fields are set before they run).
 */
export function servedEstate(): { readonly estate: CompiledEstate; readonly server: OpaServer } {
  const served = {} as { estate: CompiledEstate; server: OpaServer };
  beforeAll(async () => {
    served.estate = await compileEstate();
    served.server = await startOpaServer(['--bundle', served.estate.bundle]);
  }, 60_000);
  afterAll(async () => {
    await served.server?.stop();
  });
  return served;
}

let shipped: RegoPolicy | undefined;
/** The shipped enforcement Rego (authz.rego and gateways/*.rego) under the builtin engine. */
export function builtinPolicy(): RegoPolicy {
  shipped ??= compileModules(enforcementRego().map((m) => ({ name: m.path, text: m.text })));
  return shipped;
}

/** data.PATH (slash-separated) for input under the builtin engine; undefined stays undefined. */
export function evalBuiltin(path: string, input: unknown, data: Record<string, unknown>): unknown {
  const v = builtinPolicy().evalRule(`data.${path.split('/').join('.')}`, { input: fromJSON(input), data: fromJSON(data) });
  return v === undefined ? undefined : toJSON(v);
}

/** A gateway's answer as {allowed, reason, status, visible_tools}. */
export function readAnswer(gateway: Gateway, answer: any): { allowed: boolean; reason: string | null; status?: number; visible_tools?: string[] } {
  switch (gateway) {
    case 'envoy':
      return {
        allowed: answer.allowed,
        reason: answer.headers?.['x-toolgate-reason'] ?? null,
        ...(answer.http_status !== undefined ? { status: answer.http_status } : {}),
        ...(answer.dynamic_metadata?.toolgate?.visible_tools ? { visible_tools: answer.dynamic_metadata.toolgate.visible_tools } : {}),
      };
    case 'kong':
      return { allowed: answer.allow, reason: answer.headers?.['x-toolgate-reason'] ?? null, ...(answer.status !== undefined ? { status: answer.status } : {}) };
    case 'contextforge':
      return { allowed: answer.allow, reason: answer.reason };
    case 'docker':
      return answer === undefined ? { allowed: true, reason: null } : { allowed: false, reason: answer.structuredContent?.toolgate?.reason ?? 'UNKNOWN' };
  }
}
