/** `toolgate graph export`: a connectome file rendered as canonical JSON, DOT, GraphML or its sidecar. */
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { algorithmOption, emit, formatOption, readGraphFile, renderGraph } from '../connectome-cli.ts';
import { withSourceNames } from '../../parse/source-names.ts';

const usage = `usage: toolgate graph export --graph FILE --format json|dot|graphml|sidecar [--algorithm A] [--out FILE]

Reads a connectome (any key order or spacing; version 3 or 4) and writes it in the format asked:
json is the canonical version-4 bytes under the algorithm the file named (or --algorithm).`;

export const graphExportCommand: Command = {
  name: 'graph export',
  summary: 'render a connectome as canonical JSON, DOT, GraphML or the weights sidecar',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { graph: { type: 'string' }, format: { type: 'string' }, algorithm: { type: 'string' }, out: { type: 'string' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.graph === undefined || values.format === undefined) usageError('--graph and --format are required', usage);
    const format = formatOption(values.format, usage);
    const decoded = readGraphFile(io, values.graph);
    const algorithm = values.algorithm === undefined ? decoded.algorithm : algorithmOption(values.algorithm);
    emit(io, [{ path: values.out, bytes: withSourceNames({ default: values.graph }, () => renderGraph(decoded.graph, format, algorithm)) }]);
    return EXIT.OK;
  },
};
