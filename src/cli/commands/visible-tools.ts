/** `toolgate visible-tools AGENT [--profile P | --bundle FILE]`: generated from its row in the query table (queries/visible-tools-query.ts). */
import { queryNamed } from '../../queries/table.ts';
import { queryCommand } from '../query-command.ts';

export const visibleToolsCommand = queryCommand(queryNamed('visible-tools'));
