/**
 * `diff`: the declared-vs-observed record of two connectome files over a window file (the
 * connectome diff, record schema_version 3), with its digest. The files are read in the refusal
 * order (declared graph, observed graph, window): a fault in a file that was read is DIFF_REFUSED
 * naming the side; an unreadable or oversized file, or a path the surface refuses, keeps its own code.
 *
 * The CLI writes the record's canonical bytes (streamed: a record of tens of MB is never held
 * whole) and may add the per-agent activity report (cli/commands/diff.ts); the MCP tool answers
 * the record as JSON with its digest.
 *
 * Pure: the files' bytes come from the surface (QueryEnv).
 */
import { DIGEST_ALGORITHMS, digestHex, type DigestAlgorithm } from '../canonical/digest.ts';
import { parseStrictJson } from '../canonical/strict-json.ts';
import type { DiffRecord } from '../connectome/index.ts';
import { ToolgateError } from '../errors.ts';
import { withSourceNames } from '../parse/source-names.ts';
import { utf8Text } from '../parse/utf8-text.ts';
import type { QueryDef } from './query-def.ts';

function refusedAs<T>(side: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    // A path the surface will not read (USAGE) is not a fault of the graph on that side.
    if (e instanceof ToolgateError && e.code !== 'FILE_UNREADABLE' && e.code !== 'INPUT_TOO_LARGE' && e.code !== 'USAGE') {
      throw new ToolgateError('DIFF_REFUSED', `${side}: ${e.message}`, { at: e.at, details: e.details, cause: e });
    }
    throw e;
  }
}

export const diffQuery: QueryDef = {
  name: 'diff',
  tool: 'diff',
  title: 'Connectome diff',
  summary: 'diff a declared connectome against an observed one over a window',
  description:
    "The declared-vs-observed record (four edge classes, coverage counts, the window carried verbatim) of two connectome files over a window file, with its digest. The record is the bytes `toolgate diff` writes; the graph_state and digests beside it are the served estate's, as for every tool, while the record itself comes from the three files only.",
  help: `Writes the diff record as canonical bytes with no trailing newline (stdout without --out): the
four classes, the ten coverage counts, the window (W.json, any JSON object, carried verbatim)
and the algorithm. Refusals in order: options, declared graph, observed graph, window.`,
  args: [
    { name: 'declared', kind: 'file', description: 'path to the declared connectome (canonical JSON)', required: 'both' },
    { name: 'observed', kind: 'file', description: 'path to the observed connectome (canonical JSON)', required: 'both' },
    { name: 'window', kind: 'file', description: 'path to the window JSON file the observation covers (a diff without a window is refused)', required: 'both' },
    { name: 'algorithm', kind: 'string', description: 'digest algorithm (default sha256)', values: DIGEST_ALGORITHMS },
  ],
  estate: false,
  result: 'diff',
  run: async (env, a) => {
    const { decodeGraph, diffConnectomes } = await import('../connectome/index.ts');
    const names = { declared: a.declared as string, observed: a.observed as string, window: a.window as string };
    const graph = (side: 'declared' | 'observed') => refusedAs(side, () => decodeGraph(env.readFile(side, names[side]), { source: names[side] }).graph);
    const declared = graph('declared');
    const observed = graph('observed');
    const window = refusedAs('window', () => parseStrictJson(utf8Text(env.readFile('window', names.window), names.window), names.window));
    const algorithm = ((a.algorithm as string | undefined) ?? 'sha256') as DigestAlgorithm;
    return withSourceNames({ ...names, default: names.window }, () => diffConnectomes(declared, observed, { window, algorithm }));
  },
  answer: (record: DiffRecord) => answerOf(record),
  exit: () => ({ print: true, exit: 'OK' }),
};

/** The record as JSON, with `algorithm:hex` of its canonical bytes. */
async function answerOf(record: DiffRecord): Promise<{ record: unknown; digest: string }> {
  const { encodeDiff } = await import('../connectome/index.ts');
  const bytes = encodeDiff(record);
  return { record: JSON.parse(new TextDecoder().decode(bytes)) as unknown, digest: `${record.algorithm}:${digestHex(bytes, record.algorithm)}` };
}
