/**
 * Shared plumbing for the connectome commands (graph build/collapse/export, digest, verify,
 * observe, diff): reading graph files, rendering a graph in the requested format, writing to a
 * file atomically or to stdout, and the `--signer CMD` seam.
 */
import { resolve } from 'node:path';
import { assertDigestAlgorithm, type DigestAlgorithm } from '../canonical/digest.ts';
import { ToolgateError } from '../errors.ts';
import { decodeGraph, encodeGraph, encodeSidecar, toDot, toGraphML, type DecodedGraph, type Graph } from '../connectome/index.ts';
import { SCHEMA_VERSION, WRITABLE_SCHEMA_VERSIONS, type SchemaVersion } from '../connectome/vocabulary.ts';
import type { Signer } from '../canonical/envelope.ts';
import type { CliIo } from './command.ts';
import { runSignerCommand } from './signer-command.ts';
import { readBytesFile, writeFilesAtomic, type OutputFile } from './fs-io.ts';
import { usageError } from './args.ts';

export const GRAPH_FORMATS = ['json', 'dot', 'graphml', 'sidecar'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

const encoder = new TextEncoder();

export function pathIn(io: CliIo, p: string): string {
  return resolve(io.cwd, p);
}

/** `--algorithm`: an unknown name is bad usage (exit 2), refused before a byte is written. */
export function algorithmOption(value: string | undefined): DigestAlgorithm {
  const a = value ?? 'sha256';
  try {
    assertDigestAlgorithm(a);
  } catch (e) {
    if (e instanceof ToolgateError) throw new ToolgateError('USAGE', `--algorithm: ${e.code}: ${e.message}`, { cause: e });
    throw e;
  }
  return a;
}

export function formatOption(value: string | undefined, usage: string): GraphFormat {
  const f = value ?? 'json';
  if (!(GRAPH_FORMATS as readonly string[]).includes(f)) usageError(`--format must be one of ${GRAPH_FORMATS.join(', ')}, got ${JSON.stringify(f)}`, usage);
  return f as GraphFormat;
}

export function readGraphFile(io: CliIo, file: string): DecodedGraph {
  return decodeGraph(readBytesFile(pathIn(io, file)), { source: file });
}

/**
 * `--schema-version 3|4`; without it, `fallback`: the version the graph was read at, so a BEAM
 * host's version-3 graph is written back as its own bytes, or 4 for a graph toolgate builds.
 */
export function schemaVersionOption(value: string | undefined, fallback: number, usage: string): SchemaVersion {
  const v = value === undefined ? fallback : Number(value);
  if (!(WRITABLE_SCHEMA_VERSIONS as readonly number[]).includes(v)) usageError(`--schema-version must be one of ${WRITABLE_SCHEMA_VERSIONS.join(', ')}, got ${JSON.stringify(value)}`, usage);
  return v as SchemaVersion;
}

/** A graph in one of the four formats. `json` is the canonical bytes (no trailing newline). */
export function renderGraph(graph: Graph, format: GraphFormat, algorithm: DigestAlgorithm, schemaVersion: SchemaVersion = SCHEMA_VERSION): Uint8Array {
  switch (format) {
    case 'json':
      return encodeGraph(graph, { algorithm, schemaVersion });
    case 'sidecar':
      return encodeSidecar(graph, { schemaVersion });
    case 'dot':
      return encoder.encode(toDot(graph));
    case 'graphml':
      return encoder.encode(toGraphML(graph));
  }
}

/**
 * Writes every file atomically, then the one unnamed output to stdout: files first, so a refused
 * or failed write leaves stdout empty as well.
 */
export function emit(io: CliIo, files: readonly { path: string | undefined; flag: string; bytes: OutputFile['bytes'] }[]): void {
  const out = files.flatMap((f) => (f.path === undefined ? [] : [{ path: pathIn(io, f.path), flag: f.flag, bytes: f.bytes }]));
  if (out.length > 0) writeFilesAtomic(out);
  for (const f of files) {
    if (f.path !== undefined) continue;
    if (typeof f.bytes !== 'function') io.stdout(new TextDecoder().decode(f.bytes));
    else {
      // A chunk may end inside a character: the decoder carries it into the next.
      const decoder = new TextDecoder();
      f.bytes((chunk) => io.stdout(decoder.decode(chunk, { stream: true })));
      io.stdout(decoder.decode());
    }
  }
}

/** `--signer CMD`: the command gets the canonical bytes on stdin and prints the signature on stdout. */
export function commandSigner(io: CliIo, command: string): Signer {
  return (bytes) => runSignerCommand(io, command, bytes, 'signer');
}
