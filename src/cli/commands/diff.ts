/**
 * `toolgate diff`: the declared-vs-observed record (connectome-diff.md, record schema_version 3),
 * generated from its row in the query table (queries/diff-query.ts). The CLI writes the record's
 * canonical bytes (streamed, to stdout or --out) and, with --per-agent, the per-agent activity
 * report over the diff's window.
 */
import { canonicalBytes } from '../../canonical/json.ts';
import { writeDiff, type DiffRecord } from '../../connectome/index.ts';
import { perAgentReport, windowBounds } from '../../connectome/per-agent.ts';
import { queryNamed } from '../../queries/table.ts';
import { usageError } from '../args.ts';
import { emit } from '../connectome-cli.ts';
import { estateGrants, readDecisionLogFiles } from '../decision-log-input.ts';
import { ESTATE_OPTIONS, type EstateArgs } from '../estate-input.ts';
import { queryCommand, type CliOutput } from '../query-command.ts';

const RECORD_OUT: CliOutput = {
  synopsis: '[--out FILE] [--per-agent FILE --opa-decision-logs LOG... [estate]]',
  help: `  --out FILE         write the record there instead of stdout
  --per-agent FILE   also write, per agent, the calls in the OPA decision logs (--opa-decision-logs,
                     repeatable) between W's started_at and ended_at, the calls no grant declares
                     (undeclared), the grants never exercised (dead_authority) and the coverage,
                     against the estate's grants (--manifest/--catalog, --example or toolgate.yaml);
                     the same report as 'observe --activity-out', over the diff's window`,
  options: { out: { type: 'string' }, 'per-agent': { type: 'string' }, 'opa-decision-logs': { type: 'string', multiple: true }, ...ESTATE_OPTIONS },
  check: (values, _io, usage) => {
    if ((values['per-agent'] === undefined) !== (values['opa-decision-logs'] === undefined)) usageError('--per-agent and --opa-decision-logs go together: the report counts the calls in those logs', usage);
  },
  write: ({ result, io, values }) => {
    const record = result as DiffRecord;
    // Streamed: a record of tens of MB is never held whole.
    const files: Parameters<typeof emit>[1][number][] = [{ path: values.out as string | undefined, flag: '--out', bytes: (write) => writeDiff(record, write) }];
    let skipped = 0;
    if (values['per-agent'] !== undefined) {
      const bounds = windowBounds(record.window, values.window as string);
      const logs = readDecisionLogFiles(io, (values['opa-decision-logs'] as string[] | undefined) ?? []);
      skipped = logs.skipped;
      const report = perAgentReport(logs.calls, bounds.window, bounds.text, estateGrants(io, values as EstateArgs));
      files.push({ path: values['per-agent'] as string, flag: '--per-agent', bytes: canonicalBytes(report, { allowFloats: true }) });
    }
    emit(io, files);
    if (skipped > 0) io.stderr(`toolgate: ${skipped} decision event(s) were not toolgate {agent, tool} decisions and were not counted\n`);
    return true;
  },
};

export const diffCommand = queryCommand(queryNamed('diff'), RECORD_OUT);
