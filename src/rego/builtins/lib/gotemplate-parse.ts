/**
 * Parsing of Go's text/template as `strings.render_template` accepts it (gotemplate.ts runs the
 * result): the text is split at `{{ }}` actions (with `{{-` / `-}}` trimming, comments dropped),
 * each action read as a pipeline, a declaration or the start or end of an `if` / `with` / `range`
 * block. Faults are thrown as `TemplateError`.
 */
import type { Value } from '../../value.ts';

export class TemplateError extends Error {}

/** A missing value (Go's invalid reflect.Value / nil interface). */
export const NIL = Symbol('nil');
/** A Go number of the template itself (a literal, `len`, a range index), false when zero, unlike a json.Number. */
export class GoNum {
  constructor(readonly n: number) {}
}
export type V = Value | typeof NIL | GoNum;

export type Node =
  | { t: 'text'; s: string }
  | { t: 'out'; p: Pipe }
  | { t: 'if' | 'with'; p: Pipe; yes: Node[]; no: Node[] }
  | { t: 'range'; p: Pipe; vars: string[]; body: Node[]; no: Node[] }
  | { t: 'break' | 'continue' };

export interface Pipe {
  decl: string[];
  assign: boolean;
  cmds: Arg[][];
}

export type Arg =
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

/** The template's nodes, or a TemplateError naming the first fault. */
export function parseGoTemplate(src: string): Node[] {
  return parseNodes(split(src), { i: 0 }, []).nodes;
}
