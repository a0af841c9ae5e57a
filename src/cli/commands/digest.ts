/** `toolgate digest FILE`: re-encode a connectome canonically and print its hex digest. */
import { digestHex } from '../../canonical/digest.ts';
import { encodeGraph } from '../../connectome/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { algorithmOption, readGraphFile, schemaVersionOption } from '../connectome-cli.ts';

const usage = `usage: toolgate digest FILE [--algorithm sha256|sha384|sha512] [--schema-version 3|4]

Parses a connectome in any key order or spacing (version 3 or 4), re-encodes it canonically at
the version it names (or --schema-version) and prints the lowercase hex digest the bytes' own
algorithm member names, or the one --algorithm names when re-encoding under another.`;

export const digestCommand: Command = {
  name: 'digest',
  summary: 'print the digest of a connectome re-encoded canonically',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { algorithm: { type: 'string' }, 'schema-version': { type: 'string' } }, usage);
    if (positionals.length !== 1) usageError('expected exactly one FILE', usage);
    const requested = values.algorithm === undefined ? undefined : algorithmOption(values.algorithm);
    const decoded = readGraphFile(io, positionals[0]!);
    const algorithm = requested ?? decoded.algorithm;
    const schemaVersion = schemaVersionOption(values['schema-version'], decoded.readVersion, usage);
    io.stdout(`${digestHex(encodeGraph(decoded.graph, { algorithm, schemaVersion }), algorithm)}\n`);
    return EXIT.OK;
  },
};
