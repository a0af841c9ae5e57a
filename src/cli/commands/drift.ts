/** `toolgate drift`: governance that names tools no server exposes now. */
import { drift } from '../../audit/drift.ts';
import { auditCommand } from '../audit-command.ts';

export const driftCommand = auditCommand('drift', 'governance references to tools no server in the catalog exposes', drift);
