/** `toolgate destructive-unsafeguarded`: tools claiming destructiveHint with no GOVERNED_BY path at all. */
import { destructiveUnsafeguarded } from '../../audit/destructive-unsafeguarded.ts';
import { auditCommand } from '../audit-command.ts';

export const destructiveUnsafeguardedCommand = auditCommand(
  'destructive-unsafeguarded',
  'tools claiming destructiveHint with no GOVERNED_BY path (direct or via a resource)',
  destructiveUnsafeguarded,
);
