/** `toolgate sign`: fill a connectome's sign slots from a consumer's policy, with the data document as `data`. */
import { resolve } from 'node:path';
import { encodeGraph } from '../../connectome/index.ts';
import { digestHex } from '../../canonical/digest.ts';
import { DEFAULT_SIGN_ENTRYPOINT, signEdges } from '../../signs/index.ts';
import { ToolgateError } from '../../errors.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { readGraphFile } from '../connectome-cli.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile, writeFilesAtomic } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { engineOption, limitsFromOptions, LIMIT_OPTIONS, LIMIT_USAGE, loadSignPolicy, readJsonDocument } from '../sign-policy.ts';

const usage = `usage: toolgate sign --graph connectome.json --policy signs.rego|DIR|policy.wasm|bundle.tar.gz
                     --data data.json --out signed.json [--entrypoint ${DEFAULT_SIGN_ENTRYPOINT}]
                     [--engine builtin|wasm|opa] [--deadline-ms N] [--max-steps N]

Evaluates the policy once per connectome edge with input {edge: {from, to, kind, provenance},
from: <node>, to: <node>} and data = the data document; writes the graph with the signs filled
(canonical bytes, same algorithm) to --out. Undefined leaves an edge unset; any value other than
allow, deny, hold, ungoverned or unset is refused with the edge named, and nothing is written.
  --engine  builtin (default for .rego), wasm (default for policy.wasm and bundles), opa (compiles
            .rego with the opa binary, then runs it as wasm)
${LIMIT_USAGE}`;

export const signCommand: Command = {
  name: 'sign',
  summary: "fill a connectome's sign slots from a consumer's Rego or OPA-compiled wasm policy",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { graph: { type: 'string' }, policy: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' }, entrypoint: { type: 'string' }, engine: { type: 'string' }, ...LIMIT_OPTIONS },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    for (const k of ['graph', 'policy', 'data', 'out'] as const) if (values[k] === undefined) usageError(`--${k} is required`, usage);
    const engine = engineOption(values.engine, usage);
    const limits = limitsFromOptions(values, usage);
    const entrypoint = values.entrypoint ?? DEFAULT_SIGN_ENTRYPOINT;
    const decoded = readGraphFile(io, values.graph!);
    const dataPath = resolve(io.cwd, values.data!);
    const data = readJsonDocument(readTextFile(dataPath), values.data!);
    // OPA's data is an object at its root; an array or scalar there would be read as no data at all.
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ToolgateError('SCHEMA_INVALID', `${values.data}: the data document must be a JSON object`, { at: [{ file: values.data! }] });
    const policy = await loadSignPolicy(io, values.policy!, engine, entrypoint);
    policy.setData(data);
    const { graph, counts } = signEdges(decoded.graph, policy, { entrypoint, policyName: values.policy!, limits: limits() });
    // A version-3 graph (a BEAM host's) is written back at its own version.
    const bytes = encodeGraph(graph, { algorithm: decoded.algorithm, schemaVersion: decoded.readVersion === 3 ? 3 : 4 });
    writeFilesAtomic([{ path: resolve(io.cwd, values.out!), bytes, flag: '--out' }]);
    printJson(io, { out: values.out, engine: policy.engine, entrypoint, edges: graph.edges.length, signs: counts, algorithm: decoded.algorithm, digest: digestHex(bytes, decoded.algorithm) });
    return EXIT.OK;
  },
};
