/**
 * A/B of the builtin Rego engine in one process: the gateway-authz and partial-set workloads of
 * rego.bench.ts, on another checkout's engine (REGO_AB_BASE=/path/to/checkout) and on this one,
 * interleaved round by round so both see the same machine load. Figures only.
 *
 *   REGO_AB_BASE=/tmp/old-checkout npx tsx bench/rego-ab.ts
 */
const base = process.env.REGO_AB_BASE;
if (!base) throw new Error('set REGO_AB_BASE to the checkout whose engine is the baseline');
const A = await import(`${base}/src/rego/index.ts`);
const B = await import(new URL('../src/rego/index.ts', import.meta.url).href);
const AGENTS = 2000, TOOLS = 100, INPUTS = 100_000;
let seed = 42; const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const agents: Record<string, { tools: Record<string, { granted: boolean; reason: string }> }> = {};
for (let a = 0; a < AGENTS; a++) { const tools: Record<string, { granted: boolean; reason: string }> = {}; for (let t = 0; t < TOOLS; t++) tools[`srv${t % 10}.tool${a % 7}_${t}`] = { granted: true, reason: 'GRANTED' }; agents[`agent-${a}`] = { tools }; }
const inputs: { agent: string; tool: string }[] = []; for (let i = 0; i < INPUTS; i++) { const a = Math.floor(rand() * (AGENTS + 50)); const t = Math.floor(rand() * TOOLS * 2); inputs.push({ agent: `agent-${a}`, tool: `srv${t % 10}.tool${a % 7}_${t}` }); }
const text = `package toolgate.authz\n\ndefault decision := {"allow": false, "reason": "NOT_GRANTED"}\n\ndecision := {"allow": true, "reason": grant.reason} if {\n\tgrant := data.toolgate.agents[input.agent].tools[input.tool]\n\tgrant.granted\n}\n`;
const setText = `package bench\n\nflagged contains item.id if {\n\tsome item in input.items\n\titem.risk > 5\n\tnot item.exempt\n}\n`;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- two copies of the engine, typed alike
function setup(E: any) {
  const policy = E.compileModules([{ name: 'authz.rego', text }]);
  const data = E.fromJSON({ toolgate: { agents } });
  const sp = E.compileModules([{ name: 'set.rego', text: setText }]);
  let s2 = 7; const r = () => ((s2 = (s2 * 1103515245 + 12345) % 2147483648) / 2147483648);
  const large = E.fromJSON({ items: Array.from({ length: 100_000 }, (_, i) => ({ id: `id-${i}`, risk: Math.floor(r() * 10), exempt: r() < 0.1 })) });
  return {
    authz(): [number, number] { let n = 0; const t0 = performance.now(); for (const i of inputs) { const d = policy.evalRule('data.toolgate.authz.decision', { input: E.fromJSON(i), data }); if (d.get('allow') === true) n++; } return [performance.now() - t0, n]; },
    set(): [number, number] { const t0 = performance.now(); const v = sp.evalRule('data.bench.flagged', { input: large }); return [performance.now() - t0, v.size]; },
  };
}
const a = setup(A);
const b = setup(B);
const authzBefore: number[] = [];
const authzAfter: number[] = [];
const setBefore: number[] = [];
const setAfter: number[] = [];
for (let round = 0; round < 12; round++) {
  // alternate which engine runs first, so neither always inherits the other's garbage
  const [ta, na] = round % 2 === 0 ? a.authz() : [0, 0];
  const [tb, nb] = b.authz();
  const [ta2, na2] = round % 2 === 0 ? [ta, na] : a.authz();
  if (na2 !== nb) throw new Error(`decisions differ: ${na2} vs ${nb}`);
  authzBefore.push(ta2);
  authzAfter.push(tb);
  for (let k = 0; k < 5; k++) {
    setBefore.push(a.set()[0]);
    setAfter.push(b.set()[0]);
  }
}
const med = (x: number[]): number => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)] as number;
console.log(`gateway-authz 100,000 decisions: before min ${Math.min(...authzBefore).toFixed(0)} ms median ${med(authzBefore).toFixed(0)} ms; after min ${Math.min(...authzAfter).toFixed(0)} ms median ${med(authzAfter).toFixed(0)} ms; after/before (median) ${(med(authzAfter) / med(authzBefore)).toFixed(3)}`);
console.log(`partial-set 100,000 elements: before median ${med(setBefore).toFixed(1)} ms; after median ${med(setAfter).toFixed(1)} ms; after/before ${(med(setAfter) / med(setBefore)).toFixed(3)}`);
