/** `toolgate bundle verify` and `toolgate bundle inspect`: read an OPA bundle safely and check or describe it. */
import { resolve } from 'node:path';
import { inspectBundle, isSigningAlgorithm, readTarball, SIGNING_ALGORITHMS, verificationKeyOf, verifyBundle } from '../../bundle/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readBytesFile, readTextFile } from '../fs-io.ts';
import { printJson } from '../output.ts';

const verifyUsage = `usage: toolgate bundle verify BUNDLE.tar.gz --verification-key PUB.pem [--verification-key-id ID]
                             [--signing-alg RS256|...] [--scope S] [--exclude-files-verify GLOB]...

Checks the bundle's signature as \`opa run --bundle\` (v1.22) does with the same flags, so it accepts
exactly what that OPA accepts:
  - the key is registered under --verification-key-id (default "default", as OPA's); while that id is
    set the bundle's "kid" header picks nothing (a differing or missing kid is fine); with
    --verification-key-id "" the kid, else the payload's keyid, must name it, which one key never can;
  - the signature is checked under --signing-alg (default RS256); the header's "alg" is not consulted;
  - the payload's scope must equal --scope ("" and absent alike);
  - every file must be listed with its digest (data.json and .manifest hashed by OPA's canonical
    rules), unless an --exclude-files-verify glob (Go filepath.Match, "*" stays within a folder)
    forgives it, and every listed file must be present;
  - an unsigned bundle is refused.
Exits 1 when the bundle does not verify.`;

export const bundleVerifyCommand: Command = {
  name: 'bundle verify',
  summary: "verify an OPA bundle's .signatures.json against a public key, as OPA does",
  usage: verifyUsage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        'verification-key': { type: 'string' },
        'verification-key-id': { type: 'string' },
        'signing-alg': { type: 'string' },
        scope: { type: 'string' },
        'exclude-files-verify': { type: 'string', multiple: true },
      },
      verifyUsage,
    );
    if (positionals.length !== 1) usageError('expected exactly one BUNDLE', verifyUsage);
    if (values['verification-key'] === undefined) usageError('--verification-key PUB.pem is required', verifyUsage);
    const alg = values['signing-alg'] ?? 'RS256';
    if (!isSigningAlgorithm(alg)) usageError(`--signing-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}, got ${JSON.stringify(alg)}`, verifyUsage);
    const keyId = values['verification-key-id'] ?? 'default';
    const source = positionals[0]!;
    const files = await readTarball(readBytesFile(resolve(io.cwd, source)), source);
    const keyPath = values['verification-key'];
    const key = readTextFile(resolve(io.cwd, keyPath));
    // As OPA reads its keys at start-up: a key that is no key is named as the fault, whatever the bundle holds.
    verificationKeyOf(key, alg, keyPath);
    const v = await verifyBundle(files, { key, keyId, algorithm: alg, ...(values.scope !== undefined ? { scope: values.scope } : {}), excludeFiles: values['exclude-files-verify'] ?? [] }, source);
    if (v.keyId !== null && v.keyId !== v.verificationKeyId) {
      // OPA accepts this too; say so, since a gateway configured with several keys would pick by kid.
      io.stderr(`toolgate: note: ${source} names key ${JSON.stringify(v.keyId)}, verified with the key configured as ${JSON.stringify(v.verificationKeyId)} (a configured key id overrides the bundle's kid, in OPA as here)\n`);
    }
    printJson(io, { bundle: source, verified: true, algorithm: v.algorithm, key_id: v.keyId, verification_key_id: v.verificationKeyId, files: v.files.map((f) => f.name) });
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
