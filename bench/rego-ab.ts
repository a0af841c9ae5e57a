/**
 * A/B of the builtin Rego engine in one process: the gateway-authz and partial-set workloads of
 * rego.bench.ts, on another checkout's engine (REGO_AB_BASE=/path/to/checkout) and on this one,
 * interleaved round by round so both see the same machine load. Figures only.
 *
 *   REGO_AB_BASE=/tmp/old-checkout npx tsx bench/rego-ab.ts
 */
const base = process.env.REGO_AB_BASE;
if (!base) throw new Error('set REGO_AB_BASE to the checkout whose engine is the baseline');
const engineBefore = await import(`${base}/src/rego/index.ts`);
const engineAfter = await import(new URL('../src/rego/index.ts', import.meta.url).href);

const AGENTS = 2000;
const TOOLS = 100;
const INPUTS = 100_000;
const SET_ELEMENTS = 100_000;
const ROUNDS = 12;
const SET_RUNS_PER_ROUND = 5;

/** A seeded linear congruential generator in [0, 1): the same workload on every run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

interface Grant {
  granted: boolean;
  reason: string;
}

const agents: Record<string, { tools: Record<string, Grant> }> = {};
for (let a = 0; a < AGENTS; a++) {
  const tools: Record<string, Grant> = {};
  for (let t = 0; t < TOOLS; t++) tools[`srv${t % 10}.tool${a % 7}_${t}`] = { granted: true, reason: 'GRANTED' };
  agents[`agent-${a}`] = { tools };
}

// Some agents and tools past the granted ones, so a share of the decisions are denials.
const inputRandom = seededRandom(42);
const inputs: { agent: string; tool: string }[] = [];
for (let i = 0; i < INPUTS; i++) {
  const a = Math.floor(inputRandom() * (AGENTS + 50));
  const t = Math.floor(inputRandom() * TOOLS * 2);
  inputs.push({ agent: `agent-${a}`, tool: `srv${t % 10}.tool${a % 7}_${t}` });
}

const authzPolicy = `package toolgate.authz

default decision := {"allow": false, "reason": "NOT_GRANTED"}

decision := {"allow": true, "reason": grant.reason} if {
\tgrant := data.toolgate.agents[input.agent].tools[input.tool]
\tgrant.granted
}
`;

const setPolicy = `package bench

flagged contains item.id if {
\tsome item in input.items
\titem.risk > 5
\tnot item.exempt
}
`;

/** One timed run: milliseconds, and a count that must agree between the engines. */
type Timed = [ms: number, count: number];

interface Workloads {
  authz(): Timed;
  set(): Timed;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- two copies of the engine, typed alike
function workloadsOn(engine: any): Workloads {
  const authz = engine.compileModules([{ name: 'authz.rego', text: authzPolicy }]);
  const data = engine.fromJSON({ toolgate: { agents } });
  const partialSet = engine.compileModules([{ name: 'set.rego', text: setPolicy }]);
  const itemRandom = seededRandom(7);
  const items = Array.from({ length: SET_ELEMENTS }, (_, i) => ({ id: `id-${i}`, risk: Math.floor(itemRandom() * 10), exempt: itemRandom() < 0.1 }));
  const largeInput = engine.fromJSON({ items });
  return {
    authz(): Timed {
      let allowed = 0;
      const start = performance.now();
      for (const input of inputs) {
        const decision = authz.evalRule('data.toolgate.authz.decision', { input: engine.fromJSON(input), data });
        if (decision.get('allow') === true) allowed++;
      }
      return [performance.now() - start, allowed];
    },
    set(): Timed {
      const start = performance.now();
      const flagged = partialSet.evalRule('data.bench.flagged', { input: largeInput });
      return [performance.now() - start, flagged.size];
    },
  };
}

const before = workloadsOn(engineBefore);
const after = workloadsOn(engineAfter);
const authzBefore: number[] = [];
const authzAfter: number[] = [];
const setBefore: number[] = [];
const setAfter: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // alternate which engine runs first, so neither always inherits the other's garbage
  let runBefore: Timed;
  let runAfter: Timed;
  if (round % 2 === 0) {
    runBefore = before.authz();
    runAfter = after.authz();
  } else {
    runAfter = after.authz();
    runBefore = before.authz();
  }
  if (runBefore[1] !== runAfter[1]) throw new Error(`decisions differ: ${runBefore[1]} vs ${runAfter[1]}`);
  authzBefore.push(runBefore[0]);
  authzAfter.push(runAfter[0]);
  for (let k = 0; k < SET_RUNS_PER_ROUND; k++) {
    setBefore.push(before.set()[0]);
    setAfter.push(after.set()[0]);
  }
}

function median(xs: readonly number[]): number {
  return [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)]!;
}

const authzRatio = median(authzAfter) / median(authzBefore);
const setRatio = median(setAfter) / median(setBefore);
console.log(
  `gateway-authz 100,000 decisions: before min ${Math.min(...authzBefore).toFixed(0)} ms median ${median(authzBefore).toFixed(0)} ms; ` +
    `after min ${Math.min(...authzAfter).toFixed(0)} ms median ${median(authzAfter).toFixed(0)} ms; after/before (median) ${authzRatio.toFixed(3)}`,
);
console.log(`partial-set 100,000 elements: before median ${median(setBefore).toFixed(1)} ms; after median ${median(setAfter).toFixed(1)} ms; after/before ${setRatio.toFixed(3)}`);
