/** `toolgate verify FILE --digest HEX`: hash the file's bytes as they are, with the digest they name. */
import { digestHex, isDigestAlgorithm, type DigestAlgorithm } from '../../canonical/digest.ts';
import { JsonFloat, parseStrictJson } from '../../canonical/strict-json.ts';
import { describeValue } from '../../connectome/describe-value.ts';
import { ToolgateError } from '../../errors.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readBytesFile } from '../fs-io.ts';
import { pathIn } from '../connectome-cli.ts';

const usage = `usage: toolgate verify FILE --digest HEX

Verifies a connectome or diff record as a verifier written from the reference pages does: reads
schema_version, then the algorithm member the bytes name (versions 1 and 2, which name none, are
SHA-256), hashes the bytes exactly as held, and compares. Exit 0 on a match, 1 on a mismatch.`;

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check a connectome or diff record against a digest (exit 1 on mismatch)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { digest: { type: 'string' } }, usage);
    if (positionals.length !== 1) usageError('expected exactly one FILE', usage);
    if (values.digest === undefined) usageError('--digest is required', usage);
    const want = values.digest.trim().toLowerCase();
    if (!/^[0-9a-f]+$/.test(want)) usageError('--digest must be hexadecimal', usage);
    const file = positionals[0]!;
    const bytes = readBytesFile(pathIn(io, file));
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ToolgateError('PARSE_ERROR', `${file}: not well-formed UTF-8`, { at: [{ file }] });
    }
    const parsed = parseStrictJson(text, file);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || parsed instanceof JsonFloat) throw new ToolgateError('PARSE_ERROR', `${file}: not a JSON object`, { at: [{ file }] });
    const doc = parsed as Record<string, unknown>;
    const version = doc.schema_version;
    let algorithm: DigestAlgorithm;
    if (version === 1 || version === 2) {
      if ('algorithm' in doc) throw new ToolgateError('GRAPH_INVALID', `${file}: a version-${version} record names no algorithm; this one does, so it is malformed`, { at: [{ file, path: 'algorithm' }] });
      algorithm = 'sha256';
    } else if (version === 3 || version === 4) {
      if (!isDigestAlgorithm(doc.algorithm)) {
        throw new ToolgateError('DIGEST_ALGORITHM_UNSUPPORTED', `${file}: algorithm ${describeValue(doc.algorithm)} is not sha256, sha384 or sha512; the record is refused`, { at: [{ file, path: 'algorithm' }] });
      }
      algorithm = doc.algorithm;
    } else {
      throw new ToolgateError('GRAPH_INVALID', `${file}: schema_version ${describeValue(version)} is not one a verifier reads`, { at: [{ file, path: 'schema_version' }] });
    }
    const got = digestHex(bytes, algorithm);
    if (got !== want) {
      io.stderr(`toolgate: ${file}: ${algorithm} digest mismatch (want: ${want}, got: ${got})\n`);
      return EXIT.FAILED;
    }
    io.stdout(`${file}: ${algorithm} OK\n`);
    return EXIT.OK;
  },
};
