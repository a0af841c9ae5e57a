/**
 * What OPA's parser makes of a statement that may not be a rule (ast.ParseRuleFromExpr and its
 * helpers): why a literal cannot be one, in OPA's words, and the kinds of terms it names there.
 */
import type { Literal, Term } from './ast.ts';
import { pinnedOpaCapabilities } from './builtins/capabilities.ts';
import { termText } from './term-text.ts';
import { ObjectValue, SetValue } from './value.ts';

/** Why OPA cannot make a rule of a statement that is this literal, or undefined to keep the token error. */
export function nonRuleReason(lit: Literal): string | undefined {
  if (lit.withs.length > 0) return 'expressions using with keyword cannot be used for rule head';
  if (lit.negated) return 'negated expressions cannot be used for rule head';
  const e = lit.expr;
  if (e.kind === 'some' || e.kind === 'somein') return "'some' declarations cannot be used for rule head";
  if (e.kind === 'every') return 'expression cannot be used for rule head';
  const head = e.kind === 'term' ? e.term : e.kind === 'assign' || e.kind === 'unify' ? e.left : undefined;
  if (head === undefined) return undefined;
  if (head.type === 'ref' && head.head.type !== 'var') return `invalid rule head: ${termText(head)}`;
  if (e.kind === 'term' && head.type === 'call') return 'rule name conflicts with built-in function';
  const name = termKindName(head);
  return name === undefined ? undefined : `${name} cannot be used for rule name`;
}

/** A term without variables (OPA's IsGround): a ref, call or comprehension never is. */
export function isGroundTerm(t: Term): boolean {
  switch (t.type) {
    case 'value':
      return true;
    case 'array':
    case 'set':
      return t.items.every(isGroundTerm);
    case 'object':
      return t.entries.every(([k, v]) => isGroundTerm(k) && isGroundTerm(v));
    default:
      return false;
  }
}

export const ROOT_NAMES: ReadonlySet<string> = new Set(['data', 'input']);
let builtinNames: ReadonlySet<string> | undefined;

/** Whether a head's ref spells the name of one of OPA's builtins (`count`, `io.jwt.decode`). */
export function isBuiltinName(ref: readonly Term[]): boolean {
  builtinNames ??= new Set(pinnedOpaCapabilities().builtins.map((b) => b.name));
  const parts = ref.map((t) => (t.type === 'var' ? t.name : t.type === 'value' && typeof t.value === 'string' ? t.value : undefined));
  return parts.every((p) => p !== undefined) && builtinNames.has(parts.join('.'));
}

/** OPA's name for the kind of a term that cannot name a rule, or undefined for a ref or a call. */
export function termKindName(t: Term): string | undefined {
  switch (t.type) {
    case 'value': {
      const v = t.value;
      if (v === null) return 'null';
      if (Array.isArray(v)) return 'array';
      if (v instanceof SetValue) return 'set';
      if (v instanceof ObjectValue) return 'object';
      return typeof v === 'boolean' ? 'boolean' : typeof v === 'string' ? 'string' : 'number';
    }
    case 'array':
    case 'set':
    case 'object':
    case 'var':
      return t.type;
    case 'arraycompr':
      return 'arraycomprehension';
    case 'setcompr':
      return 'setcomprehension';
    case 'objectcompr':
      return 'objectcomprehension';
    default:
      return undefined;
  }
}
