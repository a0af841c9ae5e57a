/** `toolgate unmapped-tools`: granted tools with no READS/WRITES edge yet. */
import { unmappedTools } from '../../audit/unmapped-tools.ts';
import { auditCommand } from '../audit-command.ts';

export const unmappedToolsCommand = auditCommand('unmapped-tools', 'granted tools with no READS/WRITES edge yet', unmappedTools);
