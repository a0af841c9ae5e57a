/** `toolgate annotation-contradictions`: authored WRITES on tools claiming readOnlyHint, citing both provenances. */
import { annotationContradictions } from '../../audit/annotation-contradictions.ts';
import { auditCommand } from '../audit-command.ts';

export const annotationContradictionsCommand = auditCommand(
  'annotation-contradictions',
  'authored WRITES edges on tools claiming readOnlyHint, citing both provenances',
  annotationContradictions,
);
