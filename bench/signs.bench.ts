/**
 * Signing 100,000 connectome edges with examples/quickstart/signs.rego (builtin engine), reported as
 * edges per second and as a ratio to the same predicate written in TypeScript, measured in the same
 * run over the same edges and data document. Never asserts on speed.
 *
 * The builtin engine shares the documents of rules that read only data (the policy's tool_by_node
 * index and its violated / eligible sets) across the edges; the same engine without that sharing
 * (every evaluation re-derives them) is measured on a slice. The TypeScript predicate is measured
 * twice: deriving the tool and the sets per edge, and deriving them once per data document (the
 * like-for-like baseline for the shared engine).
 */
import { readFileSync } from 'node:fs';
import { buildGraph, type ConnectomeEdge, type ConnectomeNode } from '../src/connectome/index.ts';
import { loadPolicy } from '../src/engines/engine.ts';
import { compileModules, fromJSON } from '../src/rego/index.ts';
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

// The same predicate in TypeScript, deriving the tool and the sets per edge.
const escape = (c: string) => c.replace(/%/g, '%25').replace(/\//g, '%2F');
function tsSignPerEdge(input: { edge: { to: string; kind: string }; to: { kind: string } | null }): string {
  let tool: string | undefined;
  if (input.edge.kind === 'invoke' && input.to?.kind === 'tool') {
    for (const [k, t] of Object.entries(tools)) if (input.edge.to === [escape(t.server), 'tool', escape(t.name)].join('/')) tool = k;
  }
  if (tool !== undefined) {
    for (const a of Object.values(agents)) if (a.tools[tool]?.reason === 'DENY_VIOLATION') return 'deny';
    if (tools[tool]?.annotations.destructiveHint === true) return 'hold';
    for (const a of Object.values(agents)) if (a.tools[tool]?.allow === true) return 'allow';
  }
  return 'ungoverned';
}

// The same predicate in TypeScript, deriving the index and the sets once per data document.
function tsSignerOnce(): (input: { edge: { to: string; kind: string }; to: { kind: string } | null }) => string {
  const toolByNode = new Map<string, string>();
  for (const [k, t] of Object.entries(tools)) toolByNode.set([escape(t.server), 'tool', escape(t.name)].join('/'), k);
  const violated = new Set<string>();
  const eligible = new Set<string>();
  for (const a of Object.values(agents)) {
    for (const [k, d] of Object.entries(a.tools)) {
      if (d.reason === 'DENY_VIOLATION') violated.add(k);
      if (d.allow === true) eligible.add(k);
    }
  }
  return (input) => {
    const tool = input.edge.kind === 'invoke' && input.to?.kind === 'tool' ? toolByNode.get(input.edge.to) : undefined;
    if (tool === undefined) return 'ungoverned';
    if (violated.has(tool)) return 'deny';
    if (tools[tool]?.annotations.destructiveHint === true) return 'hold';
    return eligible.has(tool) ? 'allow' : 'ungoverned';
  };
}

const text = readFileSync(new URL('../examples/quickstart/signs.rego', import.meta.url), 'utf8');
const policy = await loadPolicy({ kind: 'rego', modules: [{ name: 'signs.rego', text }] }, { engine: 'builtin' });
policy.setData(data);

const inputs = signInputs(graph);
type TsInput = Parameters<typeof tsSignPerEdge>[0];
// Warm up, then measure each over all N edges (the unshared engine over a slice).
for (let i = 0; i < 2000; i++) tsSignPerEdge(inputs[i] as TsInput);
let t = performance.now();
const tsSigns = inputs.map((x) => tsSignPerEdge(x as TsInput));
const tsPerEdgeMs = performance.now() - t;

t = performance.now();
const once = tsSignerOnce();
const tsOnceSigns = inputs.map((x) => once(x as TsInput));
const tsOnceMs = performance.now() - t;

t = performance.now();
const { graph: signed, counts } = signEdges(graph, policy);
const regoMs = performance.now() - t;

const SLICE = 5_000;
const plain = compileModules([{ name: 'signs.rego', text }]);
const plainData = fromJSON(data);
const slice = inputs.slice(0, SLICE).map((x) => fromJSON(x));
for (let i = 0; i < 200; i++) plain.evalRule('data.toolgate.signs.sign', { input: slice[i], data: plainData });
t = performance.now();
const plainSigns = slice.map((input) => plain.evalRule('data.toolgate.signs.sign', { input, data: plainData }));
const plainMs = performance.now() - t;

const mismatches =
  signed.edges.filter((e, i) => e.sign !== tsSigns[i] || e.sign !== tsOnceSigns[i]).length +
  plainSigns.filter((v, i) => v !== signed.edges[i]!.sign).length;
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const line = (label: string, n: number, ms: number) => console.log(`  ${label.padEnd(58)} ${ms.toFixed(0).padStart(6)} ms  ${rate(n, ms).toLocaleString('en-US').padStart(10)} edges/s`);
console.log(`signs: ${N} edges, ${TOOLS} tools, 12 agents; signs ${JSON.stringify(counts)}`);
line('builtin Rego, data-only rules shared (the engine)', N, regoMs);
line(`builtin Rego, every rule per evaluation (${SLICE} edges)`, SLICE, plainMs);
line('TypeScript, tool and sets derived per edge', N, tsPerEdgeMs);
line('TypeScript, index and sets derived once', N, tsOnceMs);
console.log(`  shared vs unshared Rego: ${(rate(N, regoMs) / rate(SLICE, plainMs)).toFixed(1)}x the edges/s`);
console.log(`  Rego/TypeScript time: ${(regoMs / tsPerEdgeMs).toFixed(2)}x (per-edge TS), ${(regoMs / tsOnceMs).toFixed(1)}x (derive-once TS); sign disagreements: ${mismatches}`);
