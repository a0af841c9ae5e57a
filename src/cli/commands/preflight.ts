/**
 * `toolgate preflight AGENT CANDIDATE... --run-id ID`: generated from its row in the query table
 * (queries/run-queries.ts), with --out and --state (cli/artifact-out.ts).
 */
import { queryNamed } from '../../queries/table.ts';
import { ARTIFACT_OUT } from '../artifact-out.ts';
import { queryCommand } from '../query-command.ts';

export const preflightCommand = queryCommand(queryNamed('preflight'), ARTIFACT_OUT);
