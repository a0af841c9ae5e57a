/**
 * The conformance runner's record of OPA (src/cli/rego-conformance/): every error case of the regorus
 * set has OPA's own answer recorded, and every skip names OPA's answer; both are checked here against
 * the real `opa eval`. TOOLGATE_RECORD=1 rewrites the recorded answers from OPA instead.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listYamlFiles } from '../../../src/cli/commands/rego-conformance.ts';
import { parseCorpusFile, type RawCase } from '../../../src/cli/rego-conformance/corpus-file.ts';
import { SKIPS } from '../../../src/cli/rego-conformance/known-differences.ts';
import { REGORUS_OPA_ANSWERS, type RecordedAnswer } from '../../../src/cli/rego-conformance/opa-answers.ts';
import { caseKey } from '../../../src/cli/rego-conformance/runner.ts';
import { describeWithOpa, opaPath } from '../../helpers/opa.ts';
import { answerText, opaAnswerForRegorusCase } from '../../helpers/rego-conformance-opa.ts';

const base = join(import.meta.dirname, '../../../../shared/rego-conformance/regorus');
const answersFile = join(import.meta.dirname, '../../../src/cli/rego-conformance/opa-answers.ts');

function regorusCases(): { file: string; index: number; c: RawCase }[] {
  return listYamlFiles(base).flatMap((f) => parseCorpusFile(readFileSync(f, 'utf8'), true).map((c, index) => ({ file: f.slice(base.length + 1), index, c })));
}

function skipFor(file: string, note: unknown): string | undefined {
  return [...SKIPS.keys()].find((k) => {
    const at = k.lastIndexOf('#');
    return file.endsWith(k.slice(0, at)) && k.slice(at + 1) === note;
  });
}

function writeAnswers(answers: Map<string, RecordedAnswer>): void {
  const text = readFileSync(answersFile, 'utf8');
  const head = text.slice(0, text.indexOf('export const REGORUS_OPA_ANSWERS'));
  const rows = [...answers].map(([k, v]) => `  [${JSON.stringify(k)}, ${JSON.stringify(v)}],`).join('\n');
  writeFileSync(answersFile, `${head}export const REGORUS_OPA_ANSWERS: ReadonlyMap<string, RecordedAnswer> = new Map([\n${rows}\n]);\n`);
}

describeWithOpa('conformance runner: OPA answers recorded for the regorus set', () => {
  // In CI the corpus must be there (../shared beside the clone): a missing one fails instead of skipping.
  const corpusThere = existsSync(base) || process.env.CI === 'true' || process.env.CI === '1';
  it.skipIf(!corpusThere)(`every error case has OPA’s answer recorded, as opa eval gives it today; every skip states OPA’s answer${corpusThere ? '' : ` (skipped outside CI: ${base} is missing)`}`, () => {
    const live = new Map<string, RecordedAnswer>();
    const skips: [string, string, string][] = [];
    for (const { file, index, c } of regorusCases()) {
      const skip = skipFor(file, c.note);
      const isError = 'error' in c && c.error !== undefined && c.error !== null;
      if (!isError && skip === undefined) continue;
      const answer = opaAnswerForRegorusCase(opaPath(), file, c);
      if (isError) live.set(caseKey(file, index), { note: String(c.note), answer });
      if (skip !== undefined) skips.push([skip, SKIPS.get(skip)!.opa, answerText(answer)]);
    }
    if (process.env.TOOLGATE_RECORD === '1') writeAnswers(live);
    expect(live.size).toBeGreaterThan(200);
    expect([...REGORUS_OPA_ANSWERS]).toEqual([...live]);
    for (const [key, stated, opa] of skips) expect(`${key}: ${stated}`).toBe(`${key}: ${opa}`);
    expect(skips.length).toBe(SKIPS.size);
  }, 180_000);
});
