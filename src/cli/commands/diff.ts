/** `toolgate diff`: the declared-vs-observed record (connectome-diff.md, record schema_version 3). */
import { parseStrictJson } from '../../canonical/strict-json.ts';
import { diffConnectomes, writeDiff, type Graph } from '../../connectome/index.ts';
import { ToolgateError } from '../../errors.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { algorithmOption, emit, pathIn, readGraphFile } from '../connectome-cli.ts';

const usage = `usage: toolgate diff --declared D.json --observed O.json --window W.json [--algorithm A] [--out FILE]

Writes the diff record as canonical bytes with no trailing newline (stdout without --out): the
four classes, the ten coverage counts, the window (W.json, any JSON object, carried verbatim)
and the algorithm. Refusals in order: options, declared graph, observed graph, window.`;

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
      { declared: { type: 'string' }, observed: { type: 'string' }, window: { type: 'string' }, algorithm: { type: 'string' }, out: { type: 'string' } },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.declared === undefined || values.observed === undefined) usageError('--declared and --observed are required', usage);
    if (values.window === undefined) usageError('--window is required: a diff without a window is refused', usage);
    const algorithm = algorithmOption(values.algorithm);
    const { declared, observed, window } = readDiffInputs(io, { declared: values.declared!, observed: values.observed!, window: values.window });
    const record = diffConnectomes(declared, observed, { window, algorithm });
    // Streamed: a record of tens of MB is never held whole.
    emit(io, [{ path: values.out, bytes: (write) => writeDiff(record, write) }]);
    return EXIT.OK;
  },
};
