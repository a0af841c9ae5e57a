/** `toolgate graph export`: a connectome file rendered as canonical JSON, DOT, GraphML or its sidecar. */
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { algorithmOption, emit, formatOption, readGraphFile, renderGraph, schemaVersionOption } from '../connectome-cli.ts';
import { withSourceNames } from '../../parse/source-names.ts';

const usage = `usage: toolgate graph export --graph FILE --format json|dot|graphml|sidecar [--algorithm A] [--schema-version 3|4] [--out FILE]

Reads a connectome (any key order or spacing; version 3 or 4) and writes it in the format asked:
json is the canonical bytes under the algorithm the file named (or --algorithm), at the version
the file named (or --schema-version; 3 refuses a resource_template node), so a version-3 graph
from a BEAM host comes back as its own bytes.`;

export const graphExportCommand: Command = {
  name: 'graph export',
  summary: 'render a connectome as canonical JSON, DOT, GraphML or the weights sidecar',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { graph: { type: 'string' }, format: { type: 'string' }, algorithm: { type: 'string' }, 'schema-version': { type: 'string' }, out: { type: 'string' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.graph === undefined || values.format === undefined) usageError('--graph and --format are required', usage);
    const format = formatOption(values.format, usage);
    const decoded = readGraphFile(io, values.graph);
    const algorithm = values.algorithm === undefined ? decoded.algorithm : algorithmOption(values.algorithm);
    const version = schemaVersionOption(values['schema-version'], decoded.readVersion, usage);
    emit(io, [{ path: values.out, flag: '--out', bytes: withSourceNames({ default: values.graph }, () => renderGraph(decoded.graph, format, algorithm, version)) }]);
    return EXIT.OK;
  },
};
