/**
 * Over OPA's topdown corpus, what `toolgate decide` does with a certified policy: every module
 * through the tree codec is the parser's tree; and a query of one data path, compiled from only the
 * rules module-deps.ts reachableRules keeps for it (their trees through the codec), answers (or
 * fails) exactly as the whole policy does. In CI a missing corpus fails; elsewhere the suite
 * skips and its name says why.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listYamlFiles } from '../../../src/cli/commands/rego-conformance.ts';
import { parseCorpusFile, type RawCase } from '../../../src/cli/rego-conformance/corpus-file.ts';
import { reachableRules } from '../../../src/rego/module-deps.ts';
import { parseModule } from '../../../src/rego/parser.ts';
import { compileModules, type RegoPolicy } from '../../../src/rego/policy.ts';
import { parseValueTerm } from '../../../src/rego/policy.ts';
import { RegoError } from '../../../src/rego/errors.ts';
import { fromJSON, toJSON } from '../../../src/rego/value-json.ts';
import type { Value } from '../../../src/rego/value.ts';
import { opaCorpusDir } from '../../helpers/opa-corpus.ts';
import { roundTrip, treeDifference } from '../../helpers/rego-trees.ts';

const where = opaCorpusDir();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const ONE_PATH = /^data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*=\s*x$/;

interface Case {
  readonly at: string;
  readonly modules: { name: string; text: string }[];
  readonly c: RawCase;
}

function corpusCases(dir: string): Case[] {
  return listYamlFiles(dir).flatMap((f) => {
    let cases: RawCase[];
    try {
      cases = parseCorpusFile(readFileSync(f, 'utf8'));
    } catch {
      return [];
    }
    return cases.map((c, i) => ({ at: `${f.slice(dir.length + 1)}#${typeof c.note === 'string' ? c.note : i}`, modules: (Array.isArray(c.modules) ? c.modules : []).map((t, j) => ({ name: `test-${j}.rego`, text: String(t) })), c }));
  });
}

/** The answer to `query`, or the error, as text. */
function answer(policy: RegoPolicy, query: string, c: RawCase): string {
  try {
    const input: Value | undefined = typeof c.input_term === 'string' ? parseValueTerm(c.input_term) : 'input' in c && c.input !== undefined ? fromJSON(c.input) : undefined;
    const data = c.data === undefined || c.data === null ? undefined : fromJSON(c.data);
    const rs = policy.prepareQuery(query).evaluate({ input, data, strict: c.strict_error === true, now: 1_750_000_000_000_000_000n, maxSteps: 1_000_000, deadlineMs: 5000 });
    return JSON.stringify(rs.map((r) => [...r.bindings].map(([k, v]) => [k, toJSON(v)])), (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
  } catch (e) {
    return e instanceof RegoError ? `error ${e.regoCode}: ${e.message}` : `crash: ${String(e)}`;
  }
}

if ('dir' in where) {
  describe('OPA topdown corpus, as a certified decide compiles it', () => {
    const cases = corpusCases(where.dir);

    it('every module through the tree codec is the tree the parser gives', () => {
      let n = 0;
      for (const { at, modules } of cases) {
        for (const m of modules) {
          let tree;
          try {
            tree = parseModule(m.text, m.name, 'v1');
          } catch {
            continue;
          }
          n++;
          const d = treeDifference(roundTrip(tree), parseModule(m.text, m.name, 'v1'));
          if (d !== undefined) expect.fail(`${at} ${m.name}: ${d}`);
        }
      }
      expect(n).toBeGreaterThan(2000);
    }, 60_000);

    it('a query of one data path answers from the rules reachableRules keeps as from the whole policy', () => {
      let n = 0;
      let pruned = 0;
      for (const { at, modules, c } of cases) {
        const m = ONE_PATH.exec(String(c.query ?? ''));
        if (m === null || modules.length === 0) continue;
        let whole: RegoPolicy;
        try {
          whole = compileModules(modules, { regoVersion: 'v1' });
        } catch {
          continue;
        }
        const trees = modules.map((x) => parseModule(x.text, x.name, 'v1'));
        const keep = reachableRules(trees, m[1]!.slice(1).split('.'));
        const part = modules.map((x, i) => ({ ...x, parsed: roundTrip({ ...trees[i]!, rules: trees[i]!.rules.filter((_, j) => keep[i]![j]) }) }));
        pruned += keep.flat().filter((k) => !k).length;
        let fromPart: RegoPolicy;
        try {
          fromPart = compileModules(part, { regoVersion: 'v1', knownToCompile: true });
        } catch (e) {
          expect.fail(`${at}: the kept rules do not compile alone: ${String(e)}`);
        }
        n++;
        const query = String(c.query);
        expect(answer(fromPart, query, c), at).toBe(answer(whole, query, c));
      }
      expect(n).toBeGreaterThan(1000);
      // the differential means something only if rules were left out
      expect(pruned).toBeGreaterThan(100);
    }, 120_000);
  });
} else if (inCi) {
  describe('OPA topdown corpus, as a certified decide compiles it', () => {
    it('needs the corpus of the pinned opa module in CI', () => {
      throw new Error(where.missing);
    });
  });
} else {
  describe.skip(`OPA topdown corpus, as a certified decide compiles it (skipped outside CI: ${where.missing})`, () => {
    it('every module through the codec, and queries from the kept rules', () => {});
  });
}
