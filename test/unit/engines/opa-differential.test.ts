/**
 * Differential: every examples/<name>/signs.rego compiled to wasm by the `opa` binary must give the
 * same sign as the builtin engine for every connectome edge of that example. Needs `opa` on PATH;
 * where it is absent the test is skipped and its name says why.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { opaRunner } from '../../../src/cli/opa-runner.ts';
import { loadPolicy } from '../../../src/rego/engine.ts';
import { DEFAULT_SIGN_ENTRYPOINT, signEdges } from '../../../src/signs/index.ts';
import { graphFromJSON } from '../../../src/connectome/index.ts';

const runner = opaRunner(process.env);
const status = runner.available();
const examples = ['quickstart', 'fleet'].filter((e) => existsSync(join('examples', e, 'signs.rego')));

describe.skipIf(!status.ok)(`opa differential (${status.ok ? `opa ${status.version}` : `skipped: ${status.reason}`})`, () => {
  it.each(examples)('builtin and opa-compiled wasm give identical signs on %s', async (example) => {
    const out = mkdtempSync(join(tmpdir(), 'toolgate-opa-diff-'));
    const r = await runCli(['compile', '--example', example, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    const graph = graphFromJSON(readFileSync(join(out, 'connectome.json')));
    const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8'));
    const modules = [{ name: 'signs.rego', text: readFileSync(join('examples', example, 'signs.rego'), 'utf8') }];
    const builtin = await loadPolicy({ kind: 'rego', modules }, { engine: 'builtin' });
    const wasm = await loadPolicy({ kind: 'rego', modules }, { engine: 'opa', entrypoints: [DEFAULT_SIGN_ENTRYPOINT], opa: runner });
    builtin.setData(data);
    wasm.setData(data);
    const a = signEdges(graph, builtin).graph.edges.map((e) => e.sign);
    const b = signEdges(graph, wasm).graph.edges.map((e) => e.sign);
    expect(b).toEqual(a);
  });
});
