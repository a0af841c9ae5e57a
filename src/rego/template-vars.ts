/**
 * Template strings as OPA's RewriteTemplateStrings stage checks them, over the capture
 * comprehensions string-interpolation.ts writes (`{v | v = expr}`): which comprehension is one, and
 * the vars of an expression that nothing else in the rule binds.
 */
import type { Literal, Term } from './ast.ts';
import type { ResolveCtx } from './compiler-resolve.ts';
import { RegoError } from './errors.ts';
import { topSlots, walkLiteral, walkTerms } from './term-walk.ts';

export function isTemplateCapture(name: string): boolean {
  return name.startsWith('__template_') && !name.startsWith('__template_param_');
}

/**
 * A var of a template string's expression that nothing else in the rule binds (`$"{xs[_]}"`): OPA
 * takes a template expression's value, never iterates it, and refuses such a var as undeclared
 * (vars inside a comprehension of the expression are that comprehension's own). `rule`: every
 * term and body of the rule, the template expressions among them.
 */
export function checkTemplateVars(ctx: ResolveCtx, rule: { terms: readonly Term[]; bodies: readonly (readonly Literal[])[] }): void {
  const parts = ctx.templateParts ?? [];
  ctx.templateParts = [];
  if (parts.length === 0) return;
  const count = (into: Map<number, number>) => (x: Term) => {
    if (x.type === 'var' && x.slot !== undefined) into.set(x.slot, (into.get(x.slot) ?? 0) + 1);
  };
  const all = new Map<number, number>();
  for (const t of rule.terms) walkTerms(t, count(all));
  for (const b of rule.bodies) for (const l of b) walkLiteral(l, count(all));
  const inParts = new Map<number, number>();
  for (const p of parts) walkTerms(p, count(inParts));
  for (const p of parts) {
    const reported = new Set<string>();
    for (const slot of [...topSlots(p, new Set())].sort((a, b) => a - b)) {
      const name = ctx.names.get(slot) ?? '?';
      if ((all.get(slot) ?? 0) > (inParts.get(slot) ?? 0) || reported.has(name)) continue;
      reported.add(name);
      ctx.errors.push(new RegoError('rego_compile_error', `var ${name} is undeclared`, p.loc));
    }
  }
}
