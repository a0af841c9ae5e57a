/**
 * Go's text/template as `strings.render_template` runs it, over Rego values decoded as Go decodes
 * JSON with numbers kept as json.Number (a string kind: always true, printed as written): text and
 * `{{ }}` actions with `{{-` / `-}}` trimming and comments; pipelines of commands joined by `|`;
 * `.`, `.a.b`, `$`, `$x.a`, literals, `(pipeline)`; `{{$x := p}}` / `{{$x = p}}`; `if` / `else if`
 * / `else`, `range` (over arrays and objects in key order, with `$i, $e :=`, `else`, `break`,
 * `continue`), `with`; the functions `len`, `index`, `not`, `and`, `or`, `eq`, `ne`, `lt`, `le`,
 * `gt`, `ge`, `print`. A value is printed as fmt's %v prints it (`map[a:1 b:x]`, `[1 a]`), a
 * missing one as `<no value>`. `define`, `template` and `block` are refused. Faults are thrown as
 * `TemplateError`. Parsing is in gotemplate-parse.ts; this file runs the parsed nodes.
 */
import { ObjectValue, SetValue, isNumber, type Value } from '../../value.ts';
import { numberToString, compareNumbers } from '../../number-value.ts';
import { type Arg, type Node, type Pipe, type V, GoNum, NIL, TemplateError, parseGoTemplate } from './gotemplate-parse.ts';

export { TemplateError } from './gotemplate-parse.ts';

class Break {}
class Continue {}

interface Scope {
  dot: V;
  vars: Map<string, V>[];
}

function lookupVar(sc: Scope, name: string): V {
  for (let i = sc.vars.length - 1; i >= 0; i--) {
    const m = sc.vars[i] as Map<string, V>;
    if (m.has(name)) return m.get(name) as V;
  }
  throw new TemplateError(`undefined variable: ${name}`);
}

function setVar(sc: Scope, name: string, v: V, declare: boolean): void {
  if (declare) {
    (sc.vars[sc.vars.length - 1] as Map<string, V>).set(name, v);
    return;
  }
  for (let i = sc.vars.length - 1; i >= 0; i--) {
    const m = sc.vars[i] as Map<string, V>;
    if (m.has(name)) {
      m.set(name, v);
      return;
    }
  }
  throw new TemplateError(`undefined variable: ${name}`);
}

function field(v: V, path: string[]): V {
  let cur = v;
  for (const k of path) {
    if (cur instanceof ObjectValue) {
      const x = cur.get(k);
      cur = x === undefined || x === null ? NIL : x;
    } else if (cur === NIL) {
      // a missing key's zero value has no fields either: still no value
      cur = NIL;
    } else throw new TemplateError(`can't evaluate field ${k} in type ${goType(cur)}`);
  }
  return cur;
}

function goType(v: V): string {
  if (v === NIL) return 'interface {}';
  if (v instanceof GoNum) return Number.isInteger(v.n) ? 'int' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (isNumber(v)) return 'json.Number';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function truth(v: V): boolean {
  if (v === NIL || v === null) return false;
  if (v instanceof GoNum) return v.n !== 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v !== '';
  // a json.Number is a non-empty string
  if (isNumber(v)) return true;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof ObjectValue || v instanceof SetValue) return v.size > 0;
  return true;
}

function evalArg(a: Arg, sc: Scope, final: V | undefined): V {
  switch (a.t) {
    case 'lit':
      return a.v;
    case 'field':
      return field(a.base === 'dot' ? sc.dot : lookupVar(sc, a.base), a.path);
    case 'pipe':
      return field(evalPipe(a.p, sc), a.path);
    case 'fn':
      return callFn(a.name, [], sc, final);
  }
}

function callFn(name: string, args: Arg[], sc: Scope, final: V | undefined): V {
  if (name === 'and' || name === 'or') {
    const all = final === undefined ? args : [...args, { t: 'lit', v: final } as Arg];
    if (all.length === 0) throw new TemplateError(`wrong number of args for ${name}: want at least 1 got 0`);
    let last: V = NIL;
    for (const x of all) {
      last = evalArg(x, sc, undefined);
      if (name === 'and' ? !truth(last) : truth(last)) return last;
    }
    return last;
  }
  const vals = args.map((x) => evalArg(x, sc, undefined));
  if (final !== undefined) vals.push(final);
  const want = (n: number): void => {
    if (vals.length !== n) throw new TemplateError(`wrong number of args for ${name}: want ${n} got ${vals.length}`);
  };
  switch (name) {
    case 'not':
      want(1);
      return !truth(vals[0] as V);
    case 'len': {
      want(1);
      const v = vals[0] as V;
      if (typeof v === 'string') return new GoNum(new TextEncoder().encode(v).length);
      if (Array.isArray(v)) return new GoNum(v.length);
      if (v instanceof ObjectValue) return new GoNum(v.size);
      throw new TemplateError(`error calling len: len of type ${goType(v)}`);
    }
    case 'index': {
      if (vals.length < 1) throw new TemplateError('wrong number of args for index: want at least 1 got 0');
      let cur = vals[0] as V;
      for (const k of vals.slice(1)) {
        if (Array.isArray(cur) && k instanceof GoNum && Number.isInteger(k.n)) {
          if (k.n < 0 || k.n >= cur.length) throw new TemplateError(`error calling index: index out of range: ${k.n}`);
          cur = cur[k.n] as Value;
        } else if (cur instanceof ObjectValue && typeof k === 'string') {
          const x = cur.get(k);
          cur = x === undefined || x === null ? NIL : x;
        } else throw new TemplateError(`error calling index: cannot index ${goType(cur)}`);
      }
      return cur;
    }
    case 'print':
      return goSprint(vals);
    default: {
      want(2);
      const c = compare(vals[0] as V, vals[1] as V);
      if (name === 'eq') return c === 0;
      if (name === 'ne') return c !== 0;
      if (name === 'lt') return c < 0;
      if (name === 'le') return c <= 0;
      if (name === 'gt') return c > 0;
      return c >= 0;
    }
  }
}

function compare(a: V, b: V): number {
  if (a instanceof GoNum && b instanceof GoNum) return a.n - b.n;
  if (a instanceof GoNum || b instanceof GoNum) throw new TemplateError('incompatible types for comparison');
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a !== NIL && b !== NIL && isNumber(a) && isNumber(b)) return compareNumbers(a, b);
  throw new TemplateError('incompatible types for comparison');
}

function evalCmd(cmd: Arg[], sc: Scope, final: V | undefined): V {
  const head = cmd[0] as Arg;
  if (head.t === 'fn') return callFn(head.name, cmd.slice(1), sc, final);
  if (cmd.length > 1 || final !== undefined) throw new TemplateError(`can't give argument to non-function ${describeArg(head)}`);
  return evalArg(head, sc, undefined);
}

function describeArg(a: Arg): string {
  return a.t === 'field' ? (a.base === 'dot' ? `.${a.path.join('.')}` : a.base) : 'value';
}

function evalPipe(p: Pipe, sc: Scope): V {
  let v: V | undefined;
  for (const cmd of p.cmds) v = evalCmd(cmd, sc, v);
  const out = v as V;
  for (const name of p.decl) setVar(sc, name, out, !p.assign);
  return out;
}

/** fmt's %v of a decoded JSON value. */
function goText(v: V, top: boolean): string {
  if (v === NIL || v === null) return top ? '<no value>' : '<nil>';
  if (v instanceof GoNum) return String(v.n);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isNumber(v)) return numberToString(v);
  if (Array.isArray(v)) return `[${v.map((x) => goText(x, false)).join(' ')}]`;
  if (v instanceof ObjectValue) {
    const keys = v.entries().map(([k, x]) => [String(k), x] as const);
    keys.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `map[${keys.map(([k, x]) => `${k}:${goText(x, false)}`).join(' ')}]`;
  }
  if (v instanceof SetValue) return `[${v.values().map((x) => goText(x, false)).join(' ')}]`;
  return String(v);
}

/** fmt.Sprint: a space between operands when neither is of a string kind (a json.Number is). */
function goSprint(vals: V[]): string {
  const stringKind = (v: V | undefined): boolean => typeof v === 'string' || (v !== undefined && v !== NIL && !(v instanceof GoNum) && isNumber(v));
  let out = '';
  vals.forEach((v, i) => {
    if (i > 0 && !stringKind(v) && !stringKind(vals[i - 1])) out += ' ';
    out += goText(v, false);
  });
  return out;
}

function run(nodes: Node[], sc: Scope, out: string[]): void {
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        out.push(n.s);
        break;
      case 'out': {
        const v = evalPipe(n.p, sc);
        if (n.p.decl.length === 0) out.push(goText(v, true));
        break;
      }
      case 'if':
      case 'with': {
        sc.vars.push(new Map());
        try {
          const v = evalPipe(n.p, sc);
          if (truth(v)) run(n.yes, n.t === 'with' ? { dot: v, vars: sc.vars } : sc, out);
          else run(n.no, sc, out);
        } finally {
          sc.vars.pop();
        }
        break;
      }
      case 'range': {
        const v = evalPipe(n.p, sc);
        const items: [V, V][] = [];
        if (Array.isArray(v)) v.forEach((x, i) => items.push([new GoNum(i), x]));
        else if (v instanceof ObjectValue) {
          const es = v.entries().map(([k, x]) => [String(k), x] as [string, Value]);
          es.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
          for (const [k, x] of es) items.push([k, x]);
        } else if (v instanceof GoNum || (v !== NIL && isNumber(v)) || typeof v === 'string' || typeof v === 'boolean') throw new TemplateError(`range can't iterate over ${goText(v, false)}`);
        if (items.length === 0) {
          run(n.no, sc, out);
          break;
        }
        for (const [k, x] of items) {
          const scope = new Map<string, V>();
          if (n.vars.length === 1) scope.set(n.vars[0] as string, x);
          else if (n.vars.length === 2) {
            scope.set(n.vars[0] as string, k);
            scope.set(n.vars[1] as string, x);
          }
          sc.vars.push(scope);
          try {
            run(n.body, { dot: x, vars: sc.vars }, out);
          } catch (e) {
            if (e instanceof Break) break;
            if (!(e instanceof Continue)) throw e;
          } finally {
            sc.vars.pop();
          }
        }
        break;
      }
      case 'break':
        throw new Break();
      case 'continue':
        throw new Continue();
    }
  }
}

/** Renders `src` with `data` as dot and `$`. */
export function renderGoTemplate(src: string, data: Value): string {
  const nodes = parseGoTemplate(src);
  const out: string[] = [];
  run(nodes, { dot: data, vars: [new Map<string, V>([['$', data]])] }, out);
  return out.join('');
}
