/**
 * Real wasm: `opa build -t wasm` compiles the examples' sign policies and the enforcement policy,
 * and the `wasm` engine (opa-wasm SDK) running them gives the same sign on every connectome edge
 * and the same decision on every (agent, tool) pair as the builtin engine. The `opa` engine (which
 * builds the wasm itself) and `toolgate sign --policy <wasm bundle>` are held to the same answers.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { bundleDecider } from '../../../src/bundle/index.ts';
import { canonicalString } from '../../../src/canonical/json.ts';
import { opaRunner } from '../../../src/cli/opa-runner.ts';
import { graphFromJSON } from '../../../src/connectome/index.ts';
import { loadPolicy } from '../../../src/engines/engine.ts';
import { DEFAULT_SIGN_ENTRYPOINT, signEdges } from '../../../src/signs/index.ts';
import { runCli } from '../../helpers/cli.ts';
import { describeWithOpa, opaPath, runOpa } from '../../helpers/opa.ts';

const EXAMPLES = ['quickstart', 'fleet'] as const;
const DECISION = 'data.toolgate.authz.decision';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'toolgate-opa-wasm-'));
});

/** `opa build -t wasm -e ENTRYPOINT FILES...` into a bundle, returned as bytes. */
function buildWasmBundle(name: string, entrypoint: string, files: readonly string[]): Uint8Array {
  const out = join(work, `${name}.tar.gz`);
  const r = runOpa(['build', '-t', 'wasm', '-e', entrypoint, '-o', out, ...files]);
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(out);
}

async function compiled(example: string, withSigns: boolean): Promise<string> {
  const out = join(work, `${example}${withSigns ? '-signs' : ''}`);
  const r = await runCli(['compile', '--example', example, '--out', out, ...(withSigns ? ['--signs', `examples/${example}/signs.rego`] : [])], { env: { SOURCE_DATE_EPOCH: '0' } });
  expect(r.code, r.stderr).toBe(0);
  return out;
}

describeWithOpa('OPA-compiled wasm under the wasm engine', () => {
  it.each(EXAMPLES)('%s: the sign policy compiled by opa gives the builtin engine\'s sign on every edge', async (example) => {
    const out = await compiled(example, false);
    const graph = graphFromJSON(readFileSync(join(out, 'connectome.json')));
    const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8'));
    const policyFile = `examples/${example}/signs.rego`;
    const builtin = await loadPolicy({ kind: 'rego', modules: [{ name: policyFile, text: readFileSync(policyFile, 'utf8') }] }, { engine: 'builtin' });
    const wasmBytes = buildWasmBundle(`${example}-signs`, 'toolgate/signs/sign', [policyFile]);
    const wasm = await loadPolicy({ kind: 'bundle', bytes: wasmBytes, name: `${example}-signs.tar.gz` }, { engine: 'wasm' });
    const viaOpaEngine = await loadPolicy({ kind: 'rego', modules: [{ name: 'signs.rego', text: readFileSync(policyFile, 'utf8') }] }, { engine: 'opa', entrypoints: [DEFAULT_SIGN_ENTRYPOINT], opa: opaRunner({ TOOLGATE_OPA: opaPath() }) });
    for (const p of [builtin, wasm, viaOpaEngine]) p.setData(data);
    const want = signEdges(graph, builtin).graph.edges.map((e) => e.sign);
    expect(graph.edges.length).toBeGreaterThan(0);
    expect(new Set(want).size).toBeGreaterThan(1);
    expect(signEdges(graph, wasm).graph.edges.map((e) => e.sign)).toEqual(want);
    expect(signEdges(graph, viaOpaEngine).graph.edges.map((e) => e.sign)).toEqual(want);
  });

  it.each(EXAMPLES)('%s: toolgate sign with the opa-built wasm bundle writes the graph the builtin engine writes', async (example) => {
    const out = await compiled(example, false);
    const policyFile = `examples/${example}/signs.rego`;
    const wasmFile = join(work, `${example}-signs.tar.gz`);
    buildWasmBundle(`${example}-signs`, 'toolgate/signs/sign', [policyFile]);
    const graphs: string[] = [];
    for (const policy of [policyFile, wasmFile]) {
      const target = join(work, `${example}-signed-${graphs.length}.json`);
      const r = await runCli(['sign', '--graph', join(out, 'connectome.json'), '--policy', policy, '--data', join(out, 'data.json'), '--out', target]);
      expect(r.code, r.stderr).toBe(0);
      graphs.push(readFileSync(target, 'utf8'));
    }
    expect(graphs[1]).toBe(graphs[0]);
  });

  it.each(EXAMPLES.flatMap((e) => [[e, false], [e, true]] as const))('%s (signs: %s): the enforcement policy compiled by opa decides every pair as the builtin engine', async (example, withSigns) => {
    const out = await compiled(example, withSigns);
    const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) as { toolgate: { agents: Record<string, { tools: Record<string, unknown> }>; tools: Record<string, unknown> } };
    const wasm = await loadPolicy({ kind: 'bundle', bytes: buildWasmBundle(`${example}-authz`, 'toolgate/authz/decision', ['rego/toolgate/authz.rego']), name: 'authz.tar.gz' }, { engine: 'wasm' });
    wasm.setData(data);
    const decider = await bundleDecider(readFileSync(join(out, 'bundle.tar.gz')));
    const agents = [...Object.keys(data.toolgate.agents), 'no-such-agent'];
    const tools = [...Object.keys(data.toolgate.tools), 'no-such-server::no_such_tool', 'git_show'];
    const disagreements: string[] = [];
    for (const agent of agents) {
      for (const tool of tools) {
        const ev = wasm.evaluate({ agent, tool }, DECISION);
        const got = ev.defined && ev.type !== 'multiple' ? ev.value : null;
        const want = decider.decide(agent, tool);
        // Member order is the engine's own; the values must be equal.
        if (canonicalString(got, { allowFloats: true }) !== canonicalString(want, { allowFloats: true })) disagreements.push(`${agent} ${tool}: wasm ${JSON.stringify(got)} builtin ${JSON.stringify(want)}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(agents.length * tools.length).toBeGreaterThan(10);
  });
});
