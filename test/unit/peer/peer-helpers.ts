/** What the peer-contract tests share: the vendored vectors, the peer's JSON Schemas, scratch estates. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

const VECTORS = new URL('../../vectors/', import.meta.url);

/** A vendored vector's path (test/vectors/...). */
export const vectorPath = (rel: string): string => fileURLToPath(new URL(rel, VECTORS));
export const vectorBytes = (rel: string): Buffer => readFileSync(vectorPath(rel));
export const vectorJson = (rel: string): any => JSON.parse(vectorBytes(rel).toString('utf8'));

export const sha256 = (b: string | Uint8Array): string => createHash('sha256').update(b).digest('hex');

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** `true` when `value` validates against the vendored peer schema, else the errors as text. */
export function validates(schemaRel: string, value: unknown): true | string {
  let v = compiled.get(schemaRel);
  if (!v) compiled.set(schemaRel, (v = ajv.compile(vectorJson(schemaRel))));
  return v(value) ? true : JSON.stringify(v.errors);
}

/** A scratch folder holding the named files (objects written as JSON). */
export function scratch(files: Record<string, string | object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-peer-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return dir;
}

/** Python 3 when the machine has it: the peer is written in Python, so its encoder is the oracle for its bytes. */
export const python = ((): ((script: string, stdin?: string) => string) | undefined => {
  try {
    execFileSync('python3', ['-c', 'pass']);
    return (script, stdin) => execFileSync('python3', ['-c', script], { encoding: 'utf8', ...(stdin !== undefined ? { input: stdin } : {}) });
  } catch {
    return undefined;
  }
})();

/**
 * A folder holding one of the peer's example manifests and a catalog listing every server::tool
 * it names (what a crawl of exactly those tools would give), less the keys in `drop` (a server
 * that stopped exposing them), with toolgate.yaml naming both.
 */
export function peerExample(name: string, options: { drop?: readonly string[] } = {}): string {
  const text = vectorBytes(`toolgraph-examples/${name}.yaml`).toString('utf8');
  const m = YAML.parse(text) as { grants?: { tool: string }[]; data_access?: { tool: string }[] };
  const keys = new Set([...(m.grants ?? []), ...(m.data_access ?? [])].map((e) => e.tool).filter((k) => k.includes('::') && !options.drop?.includes(k)));
  const servers = new Map<string, { name: string; description: string; inputSchema: object }[]>();
  for (const k of [...keys].sort()) {
    const [server, tool] = k.split('::') as [string, string];
    if (!servers.has(server)) servers.set(server, []);
    servers.get(server)!.push({ name: tool, description: `${tool} as crawled`, inputSchema: { type: 'object' } });
  }
  return scratch({
    'governance.yaml': text,
    'catalog.json': { servers: [...servers].map(([n, tools]) => ({ name: n, tools })) },
    'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
  });
}
