/**
 * What `observe --opa-decision-logs` and `diff --per-agent` both read: the toolgate decisions in
 * decision-log files, and the estate's grants per agent to hold them against.
 */
import { readDecisionLogs, type DecisionCall } from '../connectome/opa-decision-logs.ts';
import type { CliIo } from './command.ts';
import { pathIn } from './connectome-cli.ts';
import { loadEstate, locateEstate, type EstateArgs } from './estate-input.ts';
import { readTextFile } from './fs-io.ts';

/** The toolgate {agent, tool} decisions of every file, in file order, and how many other events were passed over. */
export function readDecisionLogFiles(io: CliIo, files: readonly string[]): { calls: DecisionCall[]; skipped: number } {
  const calls: DecisionCall[] = [];
  let skipped = 0;
  for (const file of files) {
    const read = readDecisionLogs(readTextFile(pathIn(io, file)), file);
    calls.push(...read.calls);
    skipped += read.skipped;
  }
  return { calls, skipped };
}

/**
 * The estate's granted qualified tools per agent (--manifest/--catalog, --example or toolgate.yaml).
 * One is needed: with no grants every call would be reported undeclared.
 */
export function estateGrants(io: CliIo, values: EstateArgs): Map<string, Set<string>> {
  const grants = new Map<string, Set<string>>();
  const estate = loadEstate(locateEstate(values, io), io);
  for (const [agent, g] of estate.grantsByAgent) grants.set(agent, new Set(g.keys()));
  return grants;
}
