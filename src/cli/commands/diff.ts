/** `toolgate diff`: the declared-vs-observed record (connectome-diff.md, record schema_version 3). */
import { parseStrictJson } from '../../canonical/strict-json.ts';
import { diffConnectomes, writeDiff, type Graph } from '../../connectome/index.ts';
import { ToolgateError } from '../../errors.ts';
import { withSourceNames } from '../../parse/source-names.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { algorithmOption, emit, pathIn, readGraphFile } from '../connectome-cli.ts';
import { canonicalBytes } from '../../canonical/json.ts';
import { perAgentReport, windowBounds } from '../../connectome/per-agent.ts';
import { estateGrants, readDecisionLogFiles } from '../decision-log-input.ts';
import { ESTATE_OPTIONS } from '../estate-input.ts';

const usage = `usage: toolgate diff --declared D.json --observed O.json --window W.json [--algorithm A] [--out FILE]
                    [--per-agent FILE --opa-decision-logs LOG... [estate]]

Writes the diff record as canonical bytes with no trailing newline (stdout without --out): the
four classes, the ten coverage counts, the window (W.json, any JSON object, carried verbatim)
and the algorithm. Refusals in order: options, declared graph, observed graph, window.
  --per-agent FILE   also write, per agent, the calls in the OPA decision logs (--opa-decision-logs,
                     repeatable) between W's started_at and ended_at, the calls no grant declares
                     (undeclared), the grants never exercised (dead_authority) and the coverage,
                     against the estate's grants (--manifest/--catalog, --example or toolgate.yaml);
                     the same report as 'observe --activity-out', over the diff's window`;

function wrap(side: string, f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    if (e instanceof ToolgateError && e.code !== 'FILE_UNREADABLE' && e.code !== 'INPUT_TOO_LARGE') {
      throw new ToolgateError('DIFF_REFUSED', `${side}: ${e.message}`, { at: e.at, details: e.details, cause: e });
    }
    throw e;
  }
}

/**
 * Reads the three files of a diff (paths relative to the working directory), in the refusal order:
 * a fault in a file that was read is DIFF_REFUSED naming the side; an unreadable or oversized file
 * keeps its own code. `toolgate serve` reads its `diff` calls' files through this too.
 */
export function readDiffInputs(io: CliIo, files: { declared: string; observed: string; window: string }): { declared: Graph; observed: Graph; window: unknown } {
  const declared = wrap('declared', () => readGraphFile(io, files.declared).graph) as Graph;
  const observed = wrap('observed', () => readGraphFile(io, files.observed).graph) as Graph;
  const window = wrap('window', () => parseStrictJson(readTextFile(pathIn(io, files.window)), files.window));
  return { declared, observed, window };
}

export const diffCommand: Command = {
  name: 'diff',
  summary: 'diff a declared connectome against an observed one over a window',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        declared: { type: 'string' },
        observed: { type: 'string' },
        window: { type: 'string' },
        algorithm: { type: 'string' },
        out: { type: 'string' },
        'per-agent': { type: 'string' },
        'opa-decision-logs': { type: 'string', multiple: true },
        ...ESTATE_OPTIONS,
      },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.declared === undefined || values.observed === undefined) usageError('--declared and --observed are required', usage);
    if (values.window === undefined) usageError('--window is required: a diff without a window is refused', usage);
    if ((values['per-agent'] === undefined) !== (values['opa-decision-logs'] === undefined)) usageError('--per-agent and --opa-decision-logs go together: the report counts the calls in those logs', usage);
    const algorithm = algorithmOption(values.algorithm);
    const { declared, observed, window } = readDiffInputs(io, { declared: values.declared!, observed: values.observed!, window: values.window });
    const names = { declared: values.declared!, observed: values.observed!, window: values.window, default: values.window };
    const record = withSourceNames(names, () => diffConnectomes(declared, observed, { window, algorithm }));
    // Streamed: a record of tens of MB is never held whole.
    const files: Parameters<typeof emit>[1][number][] = [{ path: values.out, bytes: (write) => writeDiff(record, write) }];
    let skipped = 0;
    if (values['per-agent'] !== undefined) {
      const bounds = windowBounds(window, values.window);
      const logs = readDecisionLogFiles(io, values['opa-decision-logs'] ?? []);
      skipped = logs.skipped;
      const report = perAgentReport(logs.calls, bounds.window, bounds.text, estateGrants(io, values, true));
      files.push({ path: values['per-agent'], bytes: canonicalBytes(report, { allowFloats: true }) });
    }
    emit(io, files);
    if (skipped > 0) io.stderr(`toolgate: ${skipped} decision event(s) were not toolgate {agent, tool} decisions and were not counted\n`);
    return EXIT.OK;
  },
};
