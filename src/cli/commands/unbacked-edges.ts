/** `toolgate unbacked-edges`: generated from its row in the query table (queries/table.ts). */
import { queryNamed } from '../../queries/table.ts';
import { queryCommand } from '../query-command.ts';

export const unbackedEdgesCommand = queryCommand(queryNamed('unbacked-edges'));
