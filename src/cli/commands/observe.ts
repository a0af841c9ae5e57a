/** `toolgate observe`: the observed connectome from dispatch events or OTLP/JSON spans. */
import { canonicalBytes } from '../../canonical/json.ts';
import { encodeGraph, encodeSidecar, observeFromText, parseWindowBound } from '../../connectome/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { algorithmOption, emit, pathIn } from '../connectome-cli.ts';

const usage = `usage: toolgate observe --events FILE.jsonl --window-start T --window-end T
                       [--out FILE] [--sidecar FILE] [--window-out FILE] [--algorithm A]

Builds the observed connectome (canonical bytes; stdout without --out). Each line of FILE is a
dispatch event {"server","kind":"invoke"|"read","target","target_kind"?,"at"?,"outcome"?} or an
OTLP/JSON export request carrying MCP attributes. A line carrying arguments, results or headers is
refused, not trimmed. Records with a time outside [T, T') are not counted. --sidecar writes the
call counts (weights); --window-out writes the window {"ended_at","started_at"} for 'toolgate diff'.`;

export const observeCommand: Command = {
  name: 'observe',
  summary: 'build the observed connectome from dispatch events or OTLP/JSON spans',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        events: { type: 'string' },
        'window-start': { type: 'string' },
        'window-end': { type: 'string' },
        out: { type: 'string' },
        sidecar: { type: 'string' },
        'window-out': { type: 'string' },
        algorithm: { type: 'string' },
      },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.events === undefined || values['window-start'] === undefined || values['window-end'] === undefined) {
      usageError('--events, --window-start and --window-end are required', usage);
    }
    const algorithm = algorithmOption(values.algorithm);
    const startMs = parseWindowBound(values['window-start'], '--window-start');
    const endMs = parseWindowBound(values['window-end'], '--window-end');
    if (!(startMs < endMs)) usageError('--window-end must be after --window-start', usage);
    const result = observeFromText(readTextFile(pathIn(io, values.events)), values.events, { startMs, endMs });
    const files = [{ path: values.out, bytes: encodeGraph(result.graph, { algorithm }) }];
    if (values.sidecar !== undefined) files.push({ path: values.sidecar, bytes: encodeSidecar(result.graph) });
    if (values['window-out'] !== undefined) {
      files.push({ path: values['window-out'], bytes: canonicalBytes({ ended_at: values['window-end'], started_at: values['window-start'] }) });
    }
    emit(io, files);
    if (result.outsideWindow > 0) io.stderr(`toolgate: ${result.outsideWindow} record(s) outside the window were not counted\n`);
    return EXIT.OK;
  },
};
