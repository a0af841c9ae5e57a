/** `toolgate rego eval`: evaluate a Rego query with the builtin engine, printing OPA-style JSON results. */
import { resolve } from 'node:path';
import { compileModules, ObjectValue, toJSONText, type Value } from '../../rego/index.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { loadSources, mergeData, parseDataDocument, parseJsonValue } from '../rego-files.ts';

const usage = `usage: toolgate rego eval [-d FILE_OR_DIR]... [-i INPUT.json] [--data DATA.json]... [--v0] [--strict]
                          [--max-steps N] [--deadline-ms N] QUERY

Evaluates QUERY against the modules (*.rego) and data files (data.json, or a .json file named with -d)
found under each -d path, plus the base documents given with --data (merged at the data root). Prints {"result":[{"expressions":[{"value":V,"text":T,"location":{"row":R,"col":C}}...],"bindings":{NAME:V...}}]}
(keys sorted, sets as sorted arrays), or {} when the query is undefined. Modules are Rego v1 unless --v0.`;

export const regoEvalCommand: Command = {
  name: 'rego eval',
  summary: 'evaluate a Rego query with the builtin engine (like opa eval)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        dir: { type: 'string', short: 'd', multiple: true },
        input: { type: 'string', short: 'i' },
        data: { type: 'string', multiple: true },
        v0: { type: 'boolean' },
        strict: { type: 'boolean' },
        'max-steps': { type: 'string' },
        'deadline-ms': { type: 'string' },
      },
      usage,
    );
    if (positionals.length !== 1) usageError('expected exactly one QUERY', usage);
    const src = loadSources(io.cwd, values.dir ?? []);
    let data = src.data;
    for (const f of values.data ?? []) {
      const p = resolve(io.cwd, f);
      data = mergeData(data, parseDataDocument(readTextFile(p), p));
    }
    let input: Value | undefined;
    if (values.input !== undefined) {
      const p = resolve(io.cwd, values.input);
      input = parseJsonValue(readTextFile(p), p);
    }
    const policy = compileModules(src.modules, { regoVersion: values.v0 ? 'v0' : 'v1' });
    const q = policy.prepareQuery(positionals[0] as string);
    const results = q.evaluate({
      input,
      data,
      strict: values.strict === true,
      maxSteps: intOption(values['max-steps'], 'max-steps', usage),
      deadlineMs: intOption(values['deadline-ms'], 'deadline-ms', usage),
      print: (line) => io.stderr(`${line}\n`),
    });
    if (results.length === 0) {
      io.stdout('{}\n');
      return EXIT.OK;
    }
    const rows = results.map((r) => {
      const o = new ObjectValue();
      o.set(
        'expressions',
        r.expressions.map((v, i) => {
          const src = q.sources[i]!;
          return new ObjectValue([
            ['value', v],
            ['text', src.text],
            ['location', new ObjectValue([['row', src.line], ['col', src.col]])],
          ]);
        }),
      );
      if (r.bindings.size > 0) o.set('bindings', new ObjectValue([...r.bindings]));
      return o;
    });
    io.stdout(`${toJSONText(new ObjectValue([['result', rows]]))}\n`);
    return EXIT.OK;
  },
};
