/**
 * rego.parse_module against the real `opa eval`: every module of the visible OPA conformance corpus
 * (hundreds of real policies: rules of every kind, comprehensions, `with`, `every`, `some ... in`),
 * parsed by both in one batch, gives the same AST JSON; a module OPA cannot parse is undefined in both.
 * Not covered yet, so left out: modules with comments (OPA lists them, base64, with locations) and
 * and modules importing future.keywords.not (OPA keeps such a `not` as a term with a body).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listYamlFiles } from '../../../src/cli/commands/rego-conformance.ts';
import { parseCorpusFile } from '../../../src/cli/rego-conformance/corpus-file.ts';
import { compileModules, fromJSON, toJSON } from '../../../src/rego/index.ts';
import { describeWithOpa, runOpa } from '../../helpers/opa.ts';

const corpus = join(import.meta.dirname, '../../../../shared/rego-conformance/opa-v1');
const QUERY = 'x := {sprintf("%d", [i]): rego.parse_module("m.rego", t) | some i, t in input.modules}';

/** JSON text with object keys sorted, so two encoders' key orders do not matter. */
function sortedJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(sortedJson).join(',')}]`;
  if (x !== null && typeof x === 'object') {
    return `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((x as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  // OPA's side goes through JSON.parse, which reads a big integer as the nearest double
  return JSON.stringify(typeof x === 'bigint' ? Number(x) : x);
}

function corpusModules(): string[] {
  const seen = new Set<string>();
  for (const f of listYamlFiles(corpus)) {
    for (const c of parseCorpusFile(readFileSync(f, 'utf8'))) {
      for (const m of (c.modules as unknown[] | undefined) ?? []) if (!/#|future\.keywords\.not/.test(String(m))) seen.add(String(m));
    }
  }
  return [...seen];
}

describeWithOpa('rego.parse_module against opa eval', () => {
  it('gives OPA’s AST JSON for every module of the visible corpus without comments or future.keywords.not', () => {
    const modules = corpusModules();
    expect(modules.length).toBeGreaterThan(250);
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-parse-module-'));
    try {
      writeFileSync(join(dir, 'input.json'), JSON.stringify({ modules }));
      const r = runOpa(['eval', '--format', 'json', '-i', join(dir, 'input.json'), QUERY], { timeoutMs: 120_000 });
      const opa = (JSON.parse(r.stdout) as { result: { bindings: { x: Record<string, unknown> } }[] }).result[0]!.bindings.x;
      const ours = toJSON(compileModules([]).prepareQuery(QUERY).evaluate({ input: fromJSON({ modules }) })[0]!.bindings.get('x')!) as Record<string, unknown>;
      const differ = Object.keys({ ...opa, ...ours }).filter((k) => sortedJson(opa[k]) !== sortedJson(ours[k]));
      expect(differ.map((k) => modules[Number(k)]!.slice(0, 300))).toEqual([]);
      expect(Object.keys(ours).length).toBeGreaterThan(250);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
