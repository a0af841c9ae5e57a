/** `toolgate graph collapse`: a view of a connectome at a coarser level. */
import { parseStrictJson } from '../../canonical/strict-json.ts';
import { pointer } from '../../parse/locator.ts';
import { rootAt, withSourceNames } from '../../parse/source-names.ts';
import { collapse, LEVELS, type Level } from '../../connectome/index.ts';
import { ToolgateError } from '../../errors.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { algorithmOption, emit, formatOption, pathIn, readGraphFile, renderGraph } from '../connectome-cli.ts';

const usage = `usage: toolgate graph collapse --graph FILE --level mfa|module|boundary|server [--groups FILE]
                              [--algorithm A] [--format json|dot|graphml|sidecar] [--out FILE]

Maps every node finer than --level onto the node containing it. --groups is a JSON object
{"<node id>": "<containing node id>"}: how modules are grouped into boundaries (or any node into
its container) when the graph file cannot say it. A node with no container is refused.`;

export const graphCollapseCommand: Command = {
  name: 'graph collapse',
  summary: 'collapse a connectome to a coarser level (a view; the input is untouched)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      { graph: { type: 'string' }, level: { type: 'string' }, groups: { type: 'string' }, algorithm: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' } },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.graph === undefined || values.level === undefined) usageError('--graph and --level are required', usage);
    if (!(LEVELS as readonly string[]).includes(values.level)) usageError(`--level must be one of ${LEVELS.join(', ')}`, usage);
    const algorithm = algorithmOption(values.algorithm);
    const format = formatOption(values.format, usage);
    const read = readGraphFile(io, values.graph);
    const graph = read.graph;
    let groups: Record<string, string> | undefined;
    if (values.groups !== undefined) {
      const text = readTextFile(pathIn(io, values.groups));
      const v = parseStrictJson(text, values.groups);
      const notObject = typeof v !== 'object' || v === null || Array.isArray(v);
      const badKey = notObject ? undefined : Object.keys(v).find((k) => typeof (v as Record<string, unknown>)[k] !== 'string');
      if (notObject || badKey !== undefined) {
        const at = badKey === undefined ? rootAt(values.groups, text) : { file: values.groups, path: pointer([badKey]) };
        throw new ToolgateError('CONFIG_INVALID', `${values.groups}: groups must be a JSON object of node id -> node id strings`, { at: [at] });
      }
      groups = v as Record<string, string>;
    }
    const names = { groups: values.groups ?? values.graph, default: values.graph };
    const view = withSourceNames(names, () => collapse(graph, values.level as Level, groups ? { groups } : {}));
    emit(io, [{ path: values.out, flag: '--out', bytes: withSourceNames(names, () => renderGraph(view, format, algorithm, read.readVersion === 3 ? 3 : 4)) }]);
    return EXIT.OK;
  },
};
