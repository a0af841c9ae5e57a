/** `toolgate rego test DIR...`: run the `test_*` rules of Rego test modules with the builtin engine, like `opa test`. */
import { compileModules, RegoError } from '../../rego/index.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { loadSources } from '../rego-files.ts';

const usage = `usage: toolgate rego test DIR_OR_FILE... [--v0] [--max-steps N] [--deadline-ms N]

Loads every *.rego module and data.json under the paths, then evaluates each rule named test_* that is
defined in a *_test.rego file. A test passes when its value is true. Prints each failing test
(with its location and the error, if any) and a last line "N passed, M failed"; exits 1 when any fails.`;

export const regoTestCommand: Command = {
  name: 'rego test',
  summary: 'run the test_* rules of Rego *_test.rego modules with the builtin engine (like opa test)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { v0: { type: 'boolean' }, 'max-steps': { type: 'string' }, 'deadline-ms': { type: 'string' } },
      usage,
    );
    if (positionals.length === 0) usageError('give at least one folder or file', usage);
    const maxSteps = intOption(values['max-steps'], 'max-steps', usage);
    const deadlineMs = intOption(values['deadline-ms'], 'deadline-ms', usage) ?? 10_000;
    const src = loadSources(io.cwd, positionals);
    const policy = compileModules(src.modules, { regoVersion: values.v0 ? 'v0' : 'v1' });
    const seen = new Set<string>();
    const tests: { ref: string; where: string }[] = [];
    for (const m of policy.compiled.modules) {
      if (!m.file.endsWith('_test.rego')) continue;
      for (const r of m.rules) {
        const head = r.ref[0];
        if (r.kind !== 'value' || r.ref.length !== 1 || head?.type !== 'var' || !head.name.startsWith('test_')) continue;
        const ref = [...m.pkg, head.name].join('.');
        if (seen.has(ref)) continue;
        seen.add(ref);
        tests.push({ ref, where: `${r.loc.file}:${r.loc.line}` });
      }
    }
    let passed = 0;
    let failed = 0;
    for (const t of tests) {
      let ok = false;
      let detail = '';
      try {
        const v = policy.evalRule(t.ref, { data: src.data, maxSteps, deadlineMs, print: (l) => io.stderr(`${l}\n`) });
        ok = v === true;
        detail = v === undefined ? 'undefined' : `value ${JSON.stringify(v === false ? false : 'not true')}`;
      } catch (e) {
        detail = e instanceof RegoError ? `error: ${e.message}` : `error: ${(e as Error).message}`;
      }
      if (ok) passed++;
      else {
        failed++;
        io.stdout(`FAIL ${t.ref.replace(/^data\./, '')} (${t.where}): ${detail}\n`);
      }
    }
    io.stdout(`${passed} passed, ${failed} failed\n`);
    return failed === 0 ? EXIT.OK : EXIT.FAILED;
  },
};
