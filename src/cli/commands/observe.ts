/** `toolgate observe`: the observed connectome from dispatch events or OTLP/JSON spans. */
import { canonicalBytes } from '../../canonical/json.ts';
import { encodeGraph, encodeSidecar, observeFromText, parseWindowBound } from '../../connectome/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { ToolgateError } from '../../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile } from '../fs-io.ts';
import { observeDecisionCalls, windowOf } from '../../connectome/opa-decision-logs.ts';
import { perAgentReport } from '../../connectome/per-agent.ts';
import { ESTATE_OPTIONS } from '../estate-input.ts';
import { estateGrants, readDecisionLogFiles } from '../decision-log-input.ts';
import { algorithmOption, emit, pathIn } from '../connectome-cli.ts';

const usage = `usage: toolgate observe --events FILE.jsonl --window-start T --window-end T
                       [--out FILE] [--sidecar FILE] [--window-out FILE] [--algorithm A]
       toolgate observe --opa-decision-logs FILE... [--window-start T --window-end T]
                       [--activity-out FILE [estate]] [--out FILE] [--sidecar FILE] [--window-out FILE]

Builds the observed connectome (canonical bytes; stdout without --out). Each line of FILE is a
dispatch event {"server","kind":"invoke"|"read","target","target_kind"?,"at"?,"outcome"?} or an
OTLP/JSON export request carrying MCP attributes. A line carrying arguments, results or headers is
refused, not trimmed. Records with a time outside [T, T') are not counted. --sidecar writes the
call counts (weights); --window-out writes the window {"ended_at","started_at"} for 'toolgate diff'.
With --opa-decision-logs (repeatable; JSON lines as 'bundle serve --receive' writes them, or a JSON
array), each OPA decision event for toolgate's entrypoints (path toolgate/authz...) with input
{agent, tool} is one observed invoke of that tool; only the agent, the tool and allow/deny are read.
The window is the events' own unless given. --activity-out writes, per agent, the calls, the calls
no grant declares, the grants never exercised in the window (dead authority) and the coverage,
against the estate's grants (--manifest/--catalog, --example or toolgate.yaml; one is needed:
without grants every call would read as undeclared).`;

export const observeCommand: Command = {
  name: 'observe',
  summary: 'build the observed connectome from dispatch events or OTLP/JSON spans',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        events: { type: 'string' },
        'window-start': { type: 'string' },
        'window-end': { type: 'string' },
        out: { type: 'string' },
        sidecar: { type: 'string' },
        'window-out': { type: 'string' },
        algorithm: { type: 'string' },
        'opa-decision-logs': { type: 'string', multiple: true },
        'activity-out': { type: 'string' },
        ...ESTATE_OPTIONS,
      },
      usage,
    );
    if (values['opa-decision-logs'] !== undefined) return observeDecisionLogs(io, values);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.events === undefined || values['window-start'] === undefined || values['window-end'] === undefined) {
      usageError('--events, --window-start and --window-end are required', usage);
    }
    const algorithm = algorithmOption(values.algorithm);
    const startMs = parseWindowBound(values['window-start'], '--window-start');
    const endMs = parseWindowBound(values['window-end'], '--window-end');
    if (!(startMs < endMs)) usageError('--window-end must be after --window-start', usage);
    const result = observeFromText(readTextFile(pathIn(io, values.events)), values.events, { startMs, endMs });
    const files = [{ path: values.out, flag: '--out', bytes: encodeGraph(result.graph, { algorithm }) }];
    if (values.sidecar !== undefined) files.push({ path: values.sidecar, flag: '--sidecar', bytes: encodeSidecar(result.graph) });
    if (values['window-out'] !== undefined) {
      files.push({ path: values['window-out'], flag: '--window-out', bytes: canonicalBytes({ ended_at: values['window-end'], started_at: values['window-start'] }) });
    }
    emit(io, files);
    if (result.outsideWindow > 0) io.stderr(`toolgate: ${result.outsideWindow} record(s) outside the window were not counted\n`);
    return EXIT.OK;
  },
};

function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/** `observe --opa-decision-logs`: the observed connectome and per-agent activity from OPA decision logs. */
async function observeDecisionLogs(
  io: CliIo,
  values: { 'opa-decision-logs'?: string[]; events?: string; 'window-start'?: string; 'window-end'?: string; out?: string; sidecar?: string; 'window-out'?: string; algorithm?: string; 'activity-out'?: string; manifest?: string; catalog?: string; example?: string },
): Promise<number> {
  if (values.events !== undefined) usageError('--events and --opa-decision-logs are two inputs; give one', usage);
  if ((values['window-start'] === undefined) !== (values['window-end'] === undefined)) usageError('give both --window-start and --window-end, or neither (the events\' own window)', usage);
  const algorithm = algorithmOption(values.algorithm);
  const { calls, skipped } = readDecisionLogFiles(io, values['opa-decision-logs'] ?? []);
  let window = windowOf(calls);
  if (values['window-start'] !== undefined && values['window-end'] !== undefined) {
    window = { startMs: parseWindowBound(values['window-start'], '--window-start'), endMs: parseWindowBound(values['window-end'], '--window-end') };
    if (!(window.startMs < window.endMs)) usageError('--window-end must be after --window-start', usage);
  }
  if (window === undefined) {
    throw new ToolgateError('DECISION_LOG_INVALID', `no decision of toolgate's entrypoints with input {agent, tool} in ${(values['opa-decision-logs'] ?? []).join(', ')}${skipped ? ` (${skipped} other event(s))` : ''}; give --window-start/--window-end for an empty window`);
  }
  const result = observeDecisionCalls(calls, window);
  const started = values['window-start'] ?? isoOf(window.startMs);
  const ended = values['window-end'] ?? isoOf(window.endMs);
  const files = [{ path: values.out, flag: '--out', bytes: encodeGraph(result.graph, { algorithm }) }];
  if (values.sidecar !== undefined) files.push({ path: values.sidecar, flag: '--sidecar', bytes: encodeSidecar(result.graph) });
  if (values['window-out'] !== undefined) files.push({ path: values['window-out'], flag: '--window-out', bytes: canonicalBytes({ ended_at: ended, started_at: started }) });
  if (values['activity-out'] !== undefined) {
    const report = perAgentReport(calls, window, { started_at: started, ended_at: ended }, estateGrants(io, values));
    files.push({ path: values['activity-out'], flag: '--activity-out', bytes: canonicalBytes(report, { allowFloats: true }) });
  }
  emit(io, files);
  if (skipped > 0) io.stderr(`toolgate: ${skipped} decision event(s) were not toolgate {agent, tool} decisions and were not counted\n`);
  if (result.outsideWindow > 0) io.stderr(`toolgate: ${result.outsideWindow} decision(s) outside the window were not counted\n`);
  return EXIT.OK;
}
