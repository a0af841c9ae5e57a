/**
 * `--out FILE` and `--state FILE` of the run-artifact queries (preflight, control-preflight):
 * without --out the artifact is printed; with it the artifact is written privately and atomically
 * and stdout carries an envelope with the SHA-256 of the exact file bytes. The graph state
 * continues the --state file's (or the --out file's, when it holds one).
 */
import { resolve } from 'node:path';
import { digestHex } from '../canonical/digest.ts';
import { jsonFileBytes } from '../compile/json-file.ts';
import type { Estate } from '../governance/estate.ts';
import type { CliIo } from './command.ts';
import { writeFilesAtomic } from './fs-io.ts';
import { printJson } from './output.ts';
import type { CliOutput } from './query-command.ts';
import { runState, STATE_USAGE } from './run-state.ts';

interface Artifact {
  readonly run_id: string;
  readonly decision: string;
  readonly graph_state: unknown;
}

export const ARTIFACT_OUT: CliOutput = {
  synopsis: '[--out FILE] [--state FILE]',
  help: `  --out FILE     write the artifact there (private, atomic); stdout gets {out, artifact_digest, ...}
${STATE_USAGE}`,
  options: { out: { type: 'string' }, state: { type: 'string' } },
  runState: (estate: Estate, io: CliIo, values) => runState(estate, io, { state: values.state as string | undefined, out: values.out as string | undefined }),
  write: ({ result, io, values }) => {
    if (values.out === undefined) return false;
    const out = resolve(io.cwd, values.out as string);
    const bytes = jsonFileBytes(result);
    writeFilesAtomic([{ path: out, bytes, flag: '--out' }]);
    const a = result as Artifact;
    printJson(io, { out, artifact_digest: `sha256:${digestHex(bytes)}`, bytes: bytes.length, run_id: a.run_id, decision: a.decision, graph_state: a.graph_state });
    return true;
  },
};
