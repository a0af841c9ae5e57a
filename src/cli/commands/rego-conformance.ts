/** `toolgate rego conformance DIR...`: runs the YAML cases of the Rego conformance corpus. */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { runCorpusFile, formatForPath, type CaseOutcome, type CorpusFormat } from '../../rego/conformance.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';

const usage = `usage: toolgate rego conformance DIR_OR_FILE... [--format opa|regorus] [--quiet] [--max-steps N] [--deadline-ms N]

Runs every case of the *.yaml files under each path with the builtin Rego engine and prints each
failing case (file, note, want vs got), each skipped case with its reason, and a last line
"N passed, M failed, K skipped". The format defaults to regorus for a path containing a "regorus"
folder and to OPA's otherwise. Exits 1 when a case fails.`;

export function listYamlFiles(path: string): string[] {
  const st = statSync(path);
  if (st.isFile()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) {
    const p = join(path, name);
    if (statSync(p).isDirectory()) out.push(...listYamlFiles(p));
    else if (name.endsWith('.yaml') || name.endsWith('.yml')) out.push(p);
  }
  return out;
}

export const regoConformanceCommand: Command = {
  name: 'rego conformance',
  summary: 'run the Rego conformance corpus (OPA or regorus YAML cases) on the builtin engine',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        format: { type: 'string' },
        quiet: { type: 'boolean' },
        'max-steps': { type: 'string' },
        'deadline-ms': { type: 'string' },
      },
      usage,
    );
    if (positionals.length === 0) usageError('give at least one corpus folder or file', usage);
    const fmt = values.format;
    if (fmt !== undefined && fmt !== 'opa' && fmt !== 'regorus') usageError(`--format must be opa or regorus, got ${fmt}`, usage);
    const maxSteps = intOption(values['max-steps'], 'max-steps', usage);
    const deadlineMs = intOption(values['deadline-ms'], 'deadline-ms', usage);
    const outcomes: CaseOutcome[] = [];
    for (const p of positionals) {
      const abs = resolve(io.cwd, p);
      const format: CorpusFormat = (fmt as CorpusFormat | undefined) ?? formatForPath(abs);
      for (const file of listYamlFiles(abs)) {
        const text = readTextFile(file);
        const rel = relative(abs, file) || file;
        outcomes.push(...runCorpusFile(rel, text, format, { maxSteps, deadlineMs }));
      }
    }
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const o of outcomes) {
      if (o.status === 'pass') passed++;
      else if (o.status === 'skip') {
        skipped++;
        if (!values.quiet) io.stdout(`SKIP ${o.file}: ${o.note}: ${o.reason}\n`);
      } else {
        failed++;
        if (!values.quiet) io.stdout(`FAIL ${o.file}: ${o.note}\n  want: ${o.want}\n  got:  ${o.got}\n`);
      }
    }
    io.stdout(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    return failed === 0 ? EXIT.OK : EXIT.FAILED;
  },
};
