/**
 * Signing 100,000 connectome edges with examples/quickstart/signs.rego (builtin engine), reported as
 * edges per second and as a ratio to the same predicate written in TypeScript, measured in the same
 * run over the same edges and data document. Never asserts on speed.
 */
import { readFileSync } from 'node:fs';
import { buildGraph, type ConnectomeEdge, type ConnectomeNode } from '../src/connectome/index.ts';
import { loadPolicy } from '../src/rego/engine.ts';
import { signEdges, signInputs } from '../src/signs/index.ts';

const N = 100_000;
const TOOLS = 40;

// A synthetic estate in the data document's shape: TOOLS tools on 10 servers, 12 agents.
const tools: Record<string, { server: string; name: string; annotations: Record<string, boolean> }> = {};
const agents: Record<string, { tools: Record<string, { allow: boolean; reason: string | null }> }> = {};
for (let t = 0; t < TOOLS; t++) tools[`s${t % 10}::tool${t}`] = { server: `s${t % 10}`, name: `tool${t}`, annotations: t % 7 === 0 ? { destructiveHint: true } : {} };
for (let a = 0; a < 12; a++) {
  const granted: Record<string, { allow: boolean; reason: string | null }> = {};
  for (let t = a % 13; t < TOOLS; t += 3) granted[`s${t % 10}::tool${t}`] = t % 11 === 0 ? { allow: false, reason: 'DENY_VIOLATION' } : { allow: true, reason: null };
  agents[`agent${a}`] = { tools: granted };
}
const data = { toolgate: { tools, agents } };

// 100,000 edges: invoke edges from host processes to the tools, and read edges to resources.
const nodes: ConnectomeNode[] = [];
for (let s = 0; s < 10; s++) nodes.push({ id: `s${s}/server`, kind: 'server', level: 'server', labels: {} });
for (let t = 0; t < TOOLS; t++) nodes.push({ id: `s${t % 10}/tool/tool${t}`, kind: 'tool', level: 'server', labels: { name: `tool${t}` } });
for (let r = 0; r < 20; r++) nodes.push({ id: `s${r % 10}/resource/r${r}`, kind: 'resource', level: 'server', labels: {} });
const PROCS = Math.ceil(N / (TOOLS + 20));
for (let p = 0; p < PROCS; p++) nodes.push({ id: `host/process/p${p}`, kind: 'process', level: 'server', labels: {} });
const edges: ConnectomeEdge[] = [];
for (let p = 0; edges.length < N; p++) {
  for (let t = 0; t < TOOLS && edges.length < N; t++) edges.push({ from: `host/process/p${p}`, to: `s${t % 10}/tool/tool${t}`, kind: 'invoke', provenance: 'declared', sign: 'unset' });
  for (let r = 0; r < 20 && edges.length < N; r++) edges.push({ from: `host/process/p${p}`, to: `s${r % 10}/resource/r${r}`, kind: 'read', provenance: 'declared', sign: 'unset' });
}
const graph = buildGraph({ nodes, edges });

// The same predicate in TypeScript.
function tsSign(input: { edge: { to: string; kind: string }; to: { kind: string } | null }): string {
  let tool: string | undefined;
  if (input.edge.kind === 'invoke' && input.to?.kind === 'tool') {
    for (const [k, t] of Object.entries(tools)) {
      if (input.edge.to === [t.server, 'tool', t.name].map((c) => c.replace(/%/g, '%25').replace(/\//g, '%2F')).join('/')) tool = k;
    }
  }
  if (tool !== undefined) {
    for (const a of Object.values(agents)) if (a.tools[tool]?.reason === 'DENY_VIOLATION') return 'deny';
    if (tools[tool]?.annotations.destructiveHint === true) return 'hold';
    for (const a of Object.values(agents)) if (a.tools[tool]?.allow === true) return 'allow';
  }
  return 'ungoverned';
}

const text = readFileSync(new URL('../examples/quickstart/signs.rego', import.meta.url), 'utf8');
const policy = await loadPolicy({ kind: 'rego', modules: [{ name: 'signs.rego', text }] }, { engine: 'builtin' });
policy.setData(data);

// Warm up both on a slice, then measure.
const inputs = signInputs(graph);
for (let i = 0; i < 2000; i++) tsSign(inputs[i] as never);
const t0 = performance.now();
const tsSigns = inputs.map((x) => tsSign(x as never));
const tsMs = performance.now() - t0;

const t1 = performance.now();
const { graph: signed, counts } = signEdges(graph, policy);
const regoMs = performance.now() - t1;

const mismatches = signed.edges.filter((e, i) => e.sign !== tsSigns[i]).length;
const rate = (ms: number) => Math.round((N / ms) * 1000);
console.log(`signs: ${N} edges, ${TOOLS} tools, 12 agents; signs ${JSON.stringify(counts)}`);
console.log(`  builtin Rego (examples/quickstart/signs.rego): ${regoMs.toFixed(0)} ms, ${rate(regoMs).toLocaleString('en-US')} edges/s`);
console.log(`  same predicate in TypeScript:                 ${tsMs.toFixed(0)} ms, ${rate(tsMs).toLocaleString('en-US')} edges/s`);
console.log(`  ratio Rego/TypeScript time: ${(regoMs / tsMs).toFixed(1)}x; sign disagreements: ${mismatches}`);
