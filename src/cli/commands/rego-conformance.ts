/** `toolgate rego conformance DIR...`: runs the YAML cases of the Rego conformance corpus. */
import { relative, resolve } from 'node:path';
import { formatForPath, type CorpusFormat } from '../rego-conformance/corpus-file.ts';
import { runCorpusFile, type CaseOutcome } from '../rego-conformance/runner.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { filesUnder } from '../rego-files.ts';

const usage = `usage: toolgate rego conformance DIR_OR_FILE... [--corpus opa|regorus] [--format text|json] [--quiet] [--max-steps N] [--deadline-ms N]

Runs every case of the *.yaml files under each path with the builtin Rego engine and prints each
failing case (file, note, want vs got), each skipped case with its reason (OPA's own answer where the
case's expectation contradicts OPA), each case that states no expectation, and a last line
"N passed, M failed, K skipped, U unchecked". An error case passes only on the error it asks for
(OPA's cases: the code and the text given; regorus's cases: OPA's code and message for the case).
--corpus defaults to regorus for a path containing a "regorus" folder and to OPA's otherwise.
--format json prints one JSON document: every case's outcome and the counts.
Exits 1 when a case fails.`;

/** The corpus files under `path` (refusing a symlink loop, a FIFO or a missing path with the path, as the other rego commands do). */
export function listYamlFiles(path: string): string[] {
  return filesUnder(path, (name) => name.endsWith('.yaml') || name.endsWith('.yml'));
}

export const regoConformanceCommand: Command = {
  name: 'rego conformance',
  summary: 'run the Rego conformance corpus (OPA or regorus YAML cases) on the builtin engine',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        corpus: { type: 'string' },
        format: { type: 'string' },
        quiet: { type: 'boolean' },
        'max-steps': { type: 'string' },
        'deadline-ms': { type: 'string' },
      },
      usage,
    );
    if (positionals.length === 0) usageError('give at least one corpus folder or file', usage);
    const fmt = values.corpus;
    if (fmt !== undefined && fmt !== 'opa' && fmt !== 'regorus') usageError(`--corpus must be opa or regorus, got ${fmt}`, usage);
    const output = values.format ?? 'text';
    if (output !== 'text' && output !== 'json') usageError(`--format must be text or json, got ${output}`, usage);
    const maxSteps = intOption(values['max-steps'], 'max-steps', usage);
    const deadlineMs = intOption(values['deadline-ms'], 'deadline-ms', usage);
    const outcomes: CaseOutcome[] = [];
    for (const p of positionals) {
      const abs = resolve(io.cwd, p);
      const format: CorpusFormat = (fmt as CorpusFormat | undefined) ?? formatForPath(abs);
      for (const file of listYamlFiles(abs)) {
        const text = readTextFile(file);
        const rel = file === abs ? p : relative(abs, file);
        outcomes.push(...runCorpusFile(rel, text, format, { maxSteps, deadlineMs }));
        io.progress?.report('cases run', outcomes.length);
      }
    }
    const counts = { passed: 0, failed: 0, skipped: 0, unchecked: 0 };
    for (const o of outcomes) {
      if (o.status === 'pass') counts.passed++;
      else if (o.status === 'fail') counts.failed++;
      else if (o.status === 'skip') counts.skipped++;
      else counts.unchecked++;
    }
    if (output === 'json') {
      io.stdout(`${JSON.stringify({ cases: outcomes, ...counts }, null, 2)}\n`);
      return counts.failed === 0 ? EXIT.OK : EXIT.FAILED;
    }
    if (!values.quiet) {
      for (const o of outcomes) {
        if (o.status === 'skip') io.stdout(`SKIP ${o.file}: ${o.note}: ${o.reason}\n`);
        else if (o.status === 'unchecked') io.stdout(`UNCHECKED ${o.file}: ${o.note}: ${o.reason}\n`);
        else if (o.status === 'fail') io.stdout(`FAIL ${o.file}: ${o.note}\n  want: ${o.want}\n  got:  ${o.got}\n`);
      }
    }
    io.stdout(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.unchecked} unchecked\n`);
    const failed = counts.failed;
    return failed === 0 ? EXIT.OK : EXIT.FAILED;
  },
};
