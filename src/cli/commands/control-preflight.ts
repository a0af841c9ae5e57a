/**
 * `toolgate control-preflight PLAN`: generated from its row in the query table
 * (queries/run-queries.ts), with --out and --state (cli/artifact-out.ts).
 */
import { queryNamed } from '../../queries/table.ts';
import { ARTIFACT_OUT } from '../artifact-out.ts';
import { queryCommand } from '../query-command.ts';

export const controlPreflightCommand = queryCommand(queryNamed('control-preflight'), ARTIFACT_OUT);
