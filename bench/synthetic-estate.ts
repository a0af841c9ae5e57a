/**
 * A synthetic estate for benchmarks, deterministic for a given scale. At scale 1:
 * 1,000 servers, 20,000 tools, 2,000 agents, 200,000 grants, 50,000 data_access rows,
 * 2,000 policies (half DENY), bindings on a third of the resources, and a few exceptions.
 */
import { mulberry32 } from '../src/rego/prng.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EstateFiles {
  readonly dir: string;
  readonly manifest: string;
  readonly catalog: string;
  readonly counts: Record<string, number>;
}

/** A small deterministic PRNG (mulberry32) so every run builds the same estate. */
export const rng = mulberry32;

export function writeSyntheticEstate(dir: string, scale = 1): EstateFiles {
  mkdirSync(dir, { recursive: true });
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const servers = n(1000);
  const toolsPerServer = 20;
  const agents = n(2000);
  const grantsPerAgent = 100;
  const accessRows = n(50_000);
  const policies = n(2000);
  const resources = n(10_000);
  const rand = rng(42);
  const pick = (k: number) => Math.floor(rand() * k);

  const catalog = {
    kind: 'toolgate.catalog',
    schema_version: 1,
    servers: Array.from({ length: servers }, (_, s) => ({
      name: `srv-${s}`,
      tools: Array.from({ length: toolsPerServer }, (_, t) => ({
        name: `tool_${t}`,
        description: `Tool ${t} of server ${s}: does a thing with a resource.`,
        inputSchema: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'] },
        annotations: { readOnlyHint: t % 3 !== 0, destructiveHint: t % 7 === 0 },
      })),
    })),
  };
  const toolRef = (i: number) => `srv-${Math.floor(i / toolsPerServer) % servers}::tool_${i % toolsPerServer}`;
  const totalTools = servers * toolsPerServer;

  const lines: string[] = ['agents:'];
  for (let a = 0; a < agents; a++) lines.push(`  - agent-${a}`);
  lines.push('policies:');
  for (let p = 0; p < policies; p++) lines.push(`  - {id: pol-${p}, effect: ${p % 2 === 0 ? 'DENY' : 'ALLOW'}, scope: scope-${p % 50}}`);
  lines.push('grants:');
  for (let a = 0; a < agents; a++) {
    const seen = new Set<number>();
    while (seen.size < grantsPerAgent) seen.add(pick(totalTools));
    for (const t of seen) lines.push(`  - {agent: agent-${a}, tool: "${toolRef(t)}", provenance: {source: operator_asserted, confidence: high, evidence: "TICKET-${a}"}}`);
  }
  lines.push('data_access:');
  const seenAccess = new Set<string>();
  while (seenAccess.size < accessRows) {
    const t = pick(totalTools);
    const r = pick(resources);
    const mode = rand() < 0.7 ? 'READS' : 'WRITES';
    const key = `${t}/${r}/${mode}`;
    if (seenAccess.has(key)) continue;
    seenAccess.add(key);
    lines.push(`  - {tool: "${toolRef(t)}", resource: "res://r-${r}", mode: ${mode}}`);
  }
  lines.push('governed_by:');
  let bindings = 0;
  for (let r = 0; r < resources; r += 3) {
    lines.push(`  "res://r-${r}": [pol-${(r * 7) % policies}]`);
    bindings++;
  }
  lines.push('expected_exceptions:');
  for (let a = 0; a < agents; a += 100) lines.push(`  - {agent: agent-${a}, tool: "srv-${a % servers}::*", reason: "by design"}`);

  const manifest = join(dir, 'governance.yaml');
  const catalogPath = join(dir, 'catalog.json');
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  writeFileSync(catalogPath, JSON.stringify(catalog));
  return {
    dir,
    manifest,
    catalog: catalogPath,
    counts: { servers, tools: totalTools, agents, grants: agents * grantsPerAgent, data_access: accessRows, policies, bindings },
  };
}
