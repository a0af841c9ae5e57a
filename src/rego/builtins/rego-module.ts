/**
 * `rego.parse_module(filename, text)`: a module's AST as OPA marshals it to JSON (without
 * locations, as `opa eval` prints it): package path, imports, and each rule's head and body, with
 * operators as calls of their builtin names, `some ... in` as `internal.member_2/3` symbols and an
 * omitted body as OPA's generated `true`.
 */
import type { Expr, Import, Literal, Module, Rule, Term } from '../ast.ts';
import { RegoError } from '../errors.ts';
import { parseModule } from '../parser.ts';
import { ObjectValue, SetValue, compareValues, isNumber, type Value } from '../value.ts';
import { str } from './args.ts';
import { builtinError, registerBuiltins } from './registry.ts';

function obj(entries: [string, Value | undefined][]): ObjectValue {
  const o = new ObjectValue();
  for (const [k, v] of entries) if (v !== undefined) o.set(k, v);
  return o;
}

function typed(type: string, value: Value): ObjectValue {
  return obj([
    ['type', type],
    ['value', value],
  ]);
}

function valueTerm(v: Value): ObjectValue {
  if (v === null) return typed('null', new ObjectValue());
  if (typeof v === 'boolean') return typed('boolean', v);
  if (typeof v === 'string') return typed('string', v);
  if (isNumber(v)) return typed('number', v);
  if (Array.isArray(v)) return typed('array', v.map(valueTerm));
  if (v instanceof SetValue) return typed('set', v.values().map(valueTerm));
  return typed(
    'object',
    [...(v as ObjectValue).entries()].map(([k, x]) => [valueTerm(k), valueTerm(x)]),
  );
}

/** A dotted builtin name as OPA's operator ref: `internal.member_2` is `internal["member_2"]`. */
function operator(name: string): ObjectValue {
  const [head, ...rest] = name.split('.');
  return typed('ref', [typed('var', head as string), ...rest.map((p) => typed('string', p))]);
}

/** OPA's parser numbers each `_` of a module in source order: `$0`, `$1`, ... */
let wildcards = 0;

function term(t: Term): ObjectValue {
  switch (t.type) {
    case 'value':
      return valueTerm(t.value);
    case 'var':
      // OPA's parser reads the roots `input` and `data` as one-term refs
      if (t.name === '_') return typed('var', `$${wildcards++}`);
      return t.name === 'input' || t.name === 'data' ? typed('ref', [typed('var', t.name)]) : typed('var', t.name);
    case 'ref':
      return typed('ref', [t.head.type === 'var' ? typed('var', t.head.name) : term(t.head), ...t.path.map(term)]);
    case 'array':
      return typed('array', t.items.map(term));
    case 'set':
      return typed('set', (t.items.every((x) => x.type === 'value') ? [...t.items].sort(byValue) : t.items).map(term));
    case 'object': {
      // OPA keeps an object's keys sorted, so a constant-keyed object marshals in key order
      const entries = t.entries.every(([k]) => k.type === 'value') ? [...t.entries].sort(([a], [b]) => byValue(a, b)) : t.entries;
      return typed('object', entries.map(([k, v]) => [term(k), term(v)]));
    }
    case 'call':
      return typed('call', [operator(t.name), ...t.args.map(term)]);
    case 'arraycompr':
      return typed('arraycomprehension', obj([['body', body(t.body)], ['term', term(t.term)]]));
    case 'setcompr':
      return typed('setcomprehension', obj([['body', body(t.body)], ['term', term(t.term)]]));
    case 'objectcompr':
      return typed('objectcomprehension', obj([['body', body(t.body)], ['key', term(t.key)], ['value', term(t.value)]]));
  }
}

function exprTerms(e: Expr): Value {
  switch (e.kind) {
    case 'term':
      return e.term.type === 'call' ? [operator(e.term.name), ...e.term.args.map(term)] : term(e.term);
    case 'unify':
      return [operator('eq'), term(e.left), term(e.right)];
    case 'assign':
      return [operator('assign'), term(e.left), term(e.right)];
    case 'some':
      return obj([['symbols', e.vars.map(term)]]);
    case 'somein': {
      const call = e.key ? typed('call', [operator('internal.member_3'), term(e.key), term(e.value), term(e.coll)]) : typed('call', [operator('internal.member_2'), term(e.value), term(e.coll)]);
      return obj([['symbols', [call]]]);
    }
    case 'every':
      return obj([
        ['body', body(e.body)],
        ['domain', term(e.domain)],
        ['key', e.key ? term(e.key) : null],
        ['value', term(e.value)],
      ]);
  }
}

function literal(l: Literal, index: number): ObjectValue {
  return obj([
    ['index', index],
    ['negated', l.negated ? true : undefined],
    ['terms', exprTerms(l.expr)],
    ['with', l.withs.length > 0 ? l.withs.map((w) => obj([['target', term(w.target)], ['value', term(w.value)]])) : undefined],
  ]);
}

/** OPA gives a rule without a body the generated body `true`. */
function body(lits: readonly Literal[]): Value[] {
  if (lits.length === 0) return [obj([['generated', true], ['index', 0], ['terms', typed('boolean', true)]])];
  return lits.map(literal);
}

function byValue(a: Term, b: Term): number {
  return compareValues((a as Term & { type: 'value' }).value, (b as Term & { type: 'value' }).value);
}

function head(r: Rule): ObjectValue {
  // OPA names a rule whose head is one term, or two for a value rule (`p[k] := v`, `p.a := 1`), and
  // keeps a value rule's second term as its key (its legacy partial-object form) when the rule has
  // no body or that term is not a constant
  const second = r.ref[1];
  const nameOk = r.ref.length === 1 || (r.ref.length === 2 && r.kind === 'value');
  const name = r.ref[0]?.type === 'var' && nameOk ? r.ref[0].name : undefined;
  const legacyKey = r.kind === 'value' && r.ref.length === 2 && (r.body.length === 0 || second?.type !== 'value');
  const key = r.kind === 'multi' ? r.key : legacyKey ? second : undefined;
  return obj([
    ['args', r.kind === 'func' ? r.args.map(term) : undefined],
    ['assign', r.assign ? true : undefined],
    ['key', key ? term(key) : undefined],
    ['name', name],
    ['ref', r.ref.map(term)],
    ['value', r.kind === 'multi' ? undefined : term(r.value)],
  ]);
}

function rule(r: Rule): ObjectValue {
  const [first, ...more] = r.elses;
  // in source order, for the numbering of `_`
  const h = head(r);
  const b = body(r.body);
  const e = first ? rule({ ...first, elses: more }) : undefined;
  return obj([
    ['body', b],
    ['default', r.isDefault ? true : undefined],
    ['else', e],
    ['head', h],
  ]);
}

function importValue(i: Import): ObjectValue {
  return obj([
    ['alias', i.alias],
    ['path', term(i.path)],
  ]);
}

export function moduleToValue(m: Module): ObjectValue {
  wildcards = 0;
  return obj([
    ['imports', m.imports.length > 0 ? m.imports.map(importValue) : undefined],
    ['package', obj([['path', [typed('var', 'data'), ...m.pkg.slice(1).map((p) => typed('string', p))]]])],
    ['rules', m.rules.length > 0 ? m.rules.map(rule) : undefined],
  ]);
}

registerBuiltins([
  {
    name: 'rego.parse_module',
    arity: 2,
    fn: (args) => {
      const file = str('rego.parse_module', args, 0);
      const text = str('rego.parse_module', args, 1);
      try {
        return moduleToValue(parseModule(text, file, 'v1'));
      } catch (e) {
        if (e instanceof RegoError) throw builtinError('rego.parse_module', `1 error occurred: ${e.message}`);
        throw e;
      }
    },
  },
]);
