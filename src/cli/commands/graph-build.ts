/** `toolgate graph build`: the declared connectome from a catalog (and an optional host graph). */
import { parseCatalog } from '../../catalog/parse.ts';
import { digestEnvelope, envelopeBytes, signedEnvelope } from '../../canonical/envelope.ts';
import { buildDeclaredConnectome, encodeGraph } from '../../connectome/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { algorithmOption, commandSigner, emit, formatOption, pathIn, readGraphFile, renderGraph, schemaVersionOption } from '../connectome-cli.ts';

const usage = `usage: toolgate graph build --catalog FILE [--host-graph FILE] [--algorithm sha256|sha384|sha512]
                           [--format json|dot|graphml|sidecar] [--schema-version 3|4] [--out FILE]
                           [--envelope FILE [--signer CMD] [--scheme NAME] [--key-id ID]]

Builds the declared connectome (schema_version 4 unless asked) from a catalog and an optional host graph
(a connectome JSON file, version 3 or 4). --format json writes the canonical bytes (stdout
without --out). --envelope writes the digest envelope beside the bytes: the algorithm, the hex
digest, and scheme/key_id as given (null otherwise); with --signer CMD, CMD receives the
canonical bytes on stdin and prints the signature. --schema-version 3 writes beam_mcp's version
(refused when the catalog has resource templates, a kind version 3 lacks).`;

export const graphBuildCommand: Command = {
  name: 'graph build',
  summary: 'build the declared connectome from a catalog and an optional host graph',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        catalog: { type: 'string' },
        'host-graph': { type: 'string' },
        algorithm: { type: 'string' },
        'schema-version': { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
        envelope: { type: 'string' },
        signer: { type: 'string' },
        scheme: { type: 'string' },
        'key-id': { type: 'string' },
      },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.catalog === undefined) usageError('--catalog is required', usage);
    if ((values.signer || values.scheme || values['key-id']) && values.envelope === undefined) usageError('--signer, --scheme and --key-id need --envelope', usage);
    const algorithm = algorithmOption(values.algorithm);
    const format = formatOption(values.format, usage);
    const catalog = parseCatalog(values.catalog, readTextFile(pathIn(io, values.catalog)));
    const host = values['host-graph'] === undefined ? undefined : readGraphFile(io, values['host-graph']).graph;
    const graph = buildDeclaredConnectome(catalog, host);
    const schemaVersion = schemaVersionOption(values['schema-version'], 4, usage);
    const files = [{ path: values.out, flag: '--out', bytes: renderGraph(graph, format, algorithm, schemaVersion) }];
    if (values.envelope !== undefined) {
      const bytes = format === 'json' ? files[0]!.bytes : encodeGraph(graph, { algorithm, schemaVersion });
      const meta = { scheme: values.scheme ?? null, keyId: values['key-id'] ?? null };
      const env = values.signer ? await signedEnvelope(bytes, algorithm, commandSigner(io, values.signer), meta) : digestEnvelope(bytes, algorithm, meta);
      files.push({ path: values.envelope, flag: '--envelope', bytes: envelopeBytes(env) });
    }
    emit(io, files);
    return EXIT.OK;
  },
};
