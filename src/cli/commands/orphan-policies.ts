/** `toolgate orphan-policies`: policies no agent reaches, with where the chain breaks. */
import { orphanPolicies } from '../../audit/orphan-policies.ts';
import { auditCommand } from '../audit-command.ts';

export const orphanPoliciesCommand = auditCommand('orphan-policies', 'policies no agent reaches, with where the chain breaks', orphanPolicies);
