/**
 * Go's text/template as `strings.render_template` runs it, over Rego values decoded as Go decodes
 * JSON with numbers kept as json.Number (a string kind: always true, printed as written): text and
 * `{{ }}` actions with `{{-` / `-}}` trimming and comments; pipelines of commands joined by `|`;
 * `.`, `.a.b`, `$`, `$x.a`, literals, `(pipeline)`; `{{$x := p}}` / `{{$x = p}}`; `if` / `else if`
 * / `else`, `range` (over arrays and objects in key order, with `$i, $e :=`, `else`, `break`,
 * `continue`), `with`; the functions `len`, `index`, `not`, `and`, `or`, `eq`, `ne`, `lt`, `le`,
 * `gt`, `ge`, `print`. A value is printed as fmt's %v prints it (`map[a:1 b:x]`, `[1 a]`), a
 * missing one as `<no value>`. `define`, `template` and `block` are refused. Faults are thrown as
 * `TemplateError`.
 */
import { ObjectValue, SetValue, isNumber, type Value } from '../../value.ts';
import { numberToString, compareNumbers } from '../../number-value.ts';

export class TemplateError extends Error {}

/** A missing value (Go's invalid reflect.Value / nil interface). */
const NIL = Symbol('nil');
/** A Go number of the template itself (a literal, `len`, a range index), false when zero, unlike a json.Number. */
class GoNum {
  constructor(readonly n: number) {}
}
type V = Value | typeof NIL | GoNum;

type Node =
  | { t: 'text'; s: string }
  | { t: 'out'; p: Pipe }
  | { t: 'if' | 'with'; p: Pipe; yes: Node[]; no: Node[] }
  | { t: 'range'; p: Pipe; vars: string[]; body: Node[]; no: Node[] }
  | { t: 'break' | 'continue' };

interface Pipe {
  decl: string[];
  assign: boolean;
  cmds: Arg[][];
}

type Arg =
  | { t: 'field'; base: 'dot' | string; path: string[] }
  | { t: 'lit'; v: V }
  | { t: 'fn'; name: string }
  | { t: 'pipe'; p: Pipe; path: string[] };

const FUNCS = new Set(['len', 'index', 'not', 'and', 'or', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'print']);

// ------------------------------------------------------------------ lexing actions

/** Splits the template into text and action bodies, applying the trim markers. */
function split(src: string): ({ text: string } | { action: string })[] {
  const out: ({ text: string } | { action: string })[] = [];
  let i = 0;
  let trimNext = false;
  while (i <= src.length) {
    const open = src.indexOf('{{', i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      out.push({ text });
      break;
    }
    let j = open + 2;
    if (src[j] === '-' && /\s/.test(src[j + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      j++;
    }
    out.push({ text });
    const close = findClose(src, j);
    if (close < 0) throw new TemplateError('unclosed action');
    let body = src.slice(j, close);
    trimNext = false;
    if (/\s-$/.test(body)) {
      body = body.slice(0, -1);
      trimNext = true;
    }
    out.push({ action: body.trim() });
    i = close + 2;
  }
  return out;
}

/** The `}}` closing an action, skipping quoted strings and comments. */
function findClose(src: string, j: number): number {
  while (j < src.length) {
    const c = src[j];
    if (c === '"' || c === '`') {
      const q = c;
      j++;
      while (j < src.length && src[j] !== q) j += src[j] === '\\' && q === '"' ? 2 : 1;
      j++;
      continue;
    }
    if (src.startsWith('/*', j)) {
      const e = src.indexOf('*/', j + 2);
      if (e < 0) return -1;
      j = e + 2;
      continue;
    }
    if (src.startsWith('}}', j)) return j;
    j++;
  }
  return -1;
}

/** Tokens of one action. */
function tokens(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === '`') {
      let j = i + 1;
      while (j < s.length && s[j] !== c) j += s[j] === '\\' && c === '"' ? 2 : 1;
      if (j >= s.length) throw new TemplateError('unterminated quoted string');
      out.push(s.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if ('()|,'.includes(c)) {
      out.push(c);
      i++;
      continue;
    }
    if (c === ':' && s[i + 1] === '=') {
      out.push(':=');
      i += 2;
      continue;
    }
    if (c === '=') {
      out.push('=');
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && !/[\s()|,=]/.test(s[j] as string) && !(s[j] === ':' && s[j + 1] === '=')) j++;
    out.push(s.slice(i, j));
    i = j;
  }
  return out;
}

// ------------------------------------------------------------------ parsing

class Reader {
  private i = 0;
  constructor(private readonly toks: string[]) {}
  peek(): string | undefined {
    return this.toks[this.i];
  }
  next(): string {
    const t = this.toks[this.i++];
    if (t === undefined) throw new TemplateError('missing value for command');
    return t;
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }
}

function parsePipe(r: Reader): Pipe {
  const pipe: Pipe = { decl: [], assign: false, cmds: [] };
  let cmd: Arg[] = [];
  while (!r.done() && r.peek() !== ')') {
    const t = r.next();
    if (t === '|') {
      if (cmd.length === 0) throw new TemplateError('missing command');
      pipe.cmds.push(cmd);
      cmd = [];
      continue;
    }
    cmd.push(parseArg(t, r));
  }
  if (cmd.length > 0) pipe.cmds.push(cmd);
  if (pipe.cmds.length === 0) throw new TemplateError('missing value for command');
  return pipe;
}

function fieldPath(s: string): string[] {
  return s.split('.').filter((x) => x !== '');
}

function parseArg(t: string, r: Reader): Arg {
  if (t === '(') {
    const p = parsePipe(r);
    if (r.next() !== ')') throw new TemplateError('unclosed left paren');
    const nxt = r.peek();
    if (nxt !== undefined && nxt.startsWith('.') && nxt !== '.') return { t: 'pipe', p, path: fieldPath(r.next()) };
    return { t: 'pipe', p, path: [] };
  }
  if (t === '.') return { t: 'field', base: 'dot', path: [] };
  if (t.startsWith('.')) return { t: 'field', base: 'dot', path: fieldPath(t) };
  if (t.startsWith('$')) {
    const at = t.indexOf('.');
    return at < 0 ? { t: 'field', base: t, path: [] } : { t: 'field', base: t.slice(0, at), path: fieldPath(t.slice(at)) };
  }
  if (t.startsWith('"')) return { t: 'lit', v: JSON.parse(t) as string };
  if (t.startsWith('`')) return { t: 'lit', v: t.slice(1, -1) };
  if (t === 'true' || t === 'false') return { t: 'lit', v: t === 'true' };
  if (t === 'nil') return { t: 'lit', v: NIL };
  if (/^-?\d/.test(t)) {
    const n = Number(t);
    if (!Number.isFinite(n)) throw new TemplateError(`bad number syntax: ${t}`);
    return { t: 'lit', v: new GoNum(n) };
  }
  if (FUNCS.has(t)) return { t: 'fn', name: t };
  throw new TemplateError(`function "${t}" not defined`);
}

/** `$x := pipeline`, `$i, $e := pipeline`, `$x = pipeline`, or a plain pipeline. */
function parseDeclPipe(toks: string[]): Pipe {
  const decl: string[] = [];
  let k = 0;
  while (k < toks.length && (toks[k] as string).startsWith('$') && !(toks[k] as string).includes('.')) {
    decl.push(toks[k] as string);
    if (toks[k + 1] === ',') {
      k += 2;
      continue;
    }
    k++;
    break;
  }
  if (decl.length > 0 && (toks[k] === ':=' || toks[k] === '=')) {
    const assign = toks[k] === '=';
    const p = parsePipe(new Reader(toks.slice(k + 1)));
    return { ...p, decl, assign };
  }
  return parsePipe(new Reader(toks));
}

function parseNodes(parts: ReturnType<typeof split>, at: { i: number }, ends: readonly string[]): { nodes: Node[]; end: string } {
  const nodes: Node[] = [];
  while (at.i < parts.length) {
    const part = parts[at.i++] as { text: string } | { action: string };
    if ('text' in part) {
      if (part.text !== '') nodes.push({ t: 'text', s: part.text });
      continue;
    }
    const a = part.action;
    if (a.startsWith('/*')) continue;
    const toks = tokens(a);
    const kw = toks[0];
    if (kw === 'end' || kw === 'else') {
      if (!ends.includes(kw)) throw new TemplateError(`unexpected {{${kw}}}`);
      return { nodes, end: a };
    }
    if (kw === 'if' || kw === 'with' || kw === 'range') {
      nodes.push(parseBlock(kw, toks.slice(1), parts, at));
      continue;
    }
    if (kw === 'break' || kw === 'continue') {
      nodes.push({ t: kw });
      continue;
    }
    if (kw === 'define' || kw === 'template' || kw === 'block') throw new TemplateError(`{{${kw}}} is not supported`);
    nodes.push({ t: 'out', p: parseDeclPipe(toks) });
  }
  if (ends.length > 0) throw new TemplateError('unexpected EOF');
  return { nodes, end: '' };
}

/** An `if` / `with` / `range` block after its opening action; `{{else if p}}` chains share one `{{end}}`. */
function parseBlock(kw: 'if' | 'with' | 'range', rest: string[], parts: ReturnType<typeof split>, at: { i: number }): Node {
  const p = parseDeclPipe(rest);
  const body = parseNodes(parts, at, ['end', 'else']);
  let no: Node[] = [];
  if (body.end !== 'end') {
    const chain = tokens(body.end).slice(1);
    const next = chain[0];
    if (next === 'if' || next === 'with') no = [parseBlock(next, chain.slice(1), parts, at)];
    else if (chain.length === 0) no = parseNodes(parts, at, ['end']).nodes;
    else throw new TemplateError(`unexpected ${chain.join(' ')} in else`);
  }
  if (kw === 'range') return { t: 'range', p: { ...p, decl: [] }, vars: p.decl, body: body.nodes, no };
  return { t: kw, p, yes: body.nodes, no };
}

// ------------------------------------------------------------------ evaluation

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
  const parts = split(src);
  const { nodes } = parseNodes(parts, { i: 0 }, []);
  const out: string[] = [];
  run(nodes, { dot: data, vars: [new Map<string, V>([['$', data]])] }, out);
  return out.join('');
}
