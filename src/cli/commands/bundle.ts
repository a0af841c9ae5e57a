/** `toolgate bundle verify` and `toolgate bundle inspect`: read an OPA bundle safely and check or describe it. */
import { resolve } from 'node:path';
import { inspectBundle, isSigningAlgorithm, readTarball, SIGNING_ALGORITHMS, verifyBundle } from '../../bundle/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readBytesFile, readTextFile } from '../fs-io.ts';
import { printJson } from '../output.ts';

const verifyUsage = `usage: toolgate bundle verify BUNDLE.tar.gz --verification-key PUB.pem [--signing-alg RS256|...]
                             [--scope S] [--exclude-files-verify GLOB]...

Checks .signatures.json as OPA does: one JWS, signed with the key under the algorithm (default
RS256, OPA's default), the scope as given, and a file list matching the bundle exactly (no missing,
extra or altered file; data.json and .manifest hashed by OPA's canonical rules). Exits 1 when the
bundle does not verify.`;

export const bundleVerifyCommand: Command = {
  name: 'bundle verify',
  summary: "Verify an OPA bundle's .signatures.json against a public key, as OPA does",
  usage: verifyUsage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { 'verification-key': { type: 'string' }, 'signing-alg': { type: 'string' }, scope: { type: 'string' }, 'exclude-files-verify': { type: 'string', multiple: true } },
      verifyUsage,
    );
    if (positionals.length !== 1) usageError('expected exactly one BUNDLE', verifyUsage);
    if (values['verification-key'] === undefined) usageError('--verification-key PUB.pem is required', verifyUsage);
    const alg = values['signing-alg'] ?? 'RS256';
    if (!isSigningAlgorithm(alg)) usageError(`--signing-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}, got ${JSON.stringify(alg)}`, verifyUsage);
    const source = positionals[0]!;
    const files = await readTarball(readBytesFile(resolve(io.cwd, source)), source);
    const key = readTextFile(resolve(io.cwd, values['verification-key']));
    const v = await verifyBundle(files, { key, algorithm: alg, ...(values.scope !== undefined ? { scope: values.scope } : {}), excludeFiles: values['exclude-files-verify'] ?? [] }, source);
    printJson(io, { bundle: source, verified: true, algorithm: v.algorithm, key_id: v.keyId, files: v.files.map((f) => f.name) });
    return EXIT.OK;
  },
};

const inspectUsage = `usage: toolgate bundle inspect BUNDLE.tar.gz

Prints the bundle's entries (size, sha256 of the bytes, and the digest OPA's signature rules give),
its manifest, revision and roots, and an unverified summary of .signatures.json.`;

export const bundleInspectCommand: Command = {
  name: 'bundle inspect',
  summary: 'list an OPA bundle: entries, manifest, roots and digests',
  usage: inspectUsage,
  async run(args, io) {
    const { positionals } = parseCommandArgs(args, {}, inspectUsage);
    if (positionals.length !== 1) usageError('expected exactly one BUNDLE', inspectUsage);
    const source = positionals[0]!;
    const files = await readTarball(readBytesFile(resolve(io.cwd, source)), source);
    printJson(io, { bundle: source, ...inspectBundle(files, source) });
    return EXIT.OK;
  },
};
