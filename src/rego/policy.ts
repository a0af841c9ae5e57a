/**
 * A compiled policy: compile modules once, then evaluate queries many times.
 *
 *   const policy = compileModules([{ name: 'authz.rego', text }]);
 *   const q = policy.prepareQuery('data.toolgate.authz.decision = x');
 *   q.evaluate({ input, data }) // -> [{ expressions: [true], bindings: { x: ... } }]
 *   policy.evalRule('data.toolgate.authz.decision', { input, data }) // -> value or undefined
 *
 * `input` and `data` are Rego values (`fromJSON` converts plain JSON once; convert big data documents once
 * and reuse them across evaluations). Result values are Rego values too (`toJSON` gives plain JSON).
 * Errors are `RegoError`s (OPA's code in `regoCode`).
 */
import { rewriteMetadataCalls } from './annotations.ts';
import type { Loc, Module, Term } from './ast.ts';
import { compiledPolicyOf, compileQuery, type CompiledPolicy, type CompiledQuery } from './compiler.ts';
import { RegoError } from './errors.ts';
import { Evaluator, type EvalOptions } from './eval.ts';
import { nestingOf, parseModule, parseQuery, parseTerm, type RegoVersion } from './parser.ts';
import { isStackOverflow } from './token-cursor.ts';
import { type Value } from './value.ts';

export interface ModuleSource {
  readonly name: string;
  readonly text: string;
  /**
   * The module as `parseModule(text, name, regoVersion)` returned it, when the caller has parsed it
   * already (a bundle loader reads each module's package): compiling then skips a second parse. The
   * compiler takes the tree over and may rewrite it.
   */
  readonly parsed?: Module;
}

export interface RegoCompileOptions {
  readonly regoVersion?: RegoVersion;
  /** The modules are known to compile (compiler.ts ModuleCompileOptions): the checks that only report are skipped. */
  readonly knownToCompile?: boolean;
}

/** One solution of a query: the value of each expression and the query variables' bindings. */
export interface QueryResult {
  readonly expressions: Value[];
  readonly bindings: Map<string, Value>;
}

export interface ExpressionSource {
  readonly text: string;
  readonly line: number;
  readonly col: number;
}

export interface PreparedQuery {
  readonly vars: readonly string[];
  /** Each of the query's expressions as written and where it starts (1-based), in result order. */
  readonly sources: readonly ExpressionSource[];
  evaluate(opts?: EvalOptions): QueryResult[];
}

export interface RegoPolicy {
  readonly compiled: CompiledPolicy;
  prepareQuery(query: string): PreparedQuery;
  /** Value of the document at a data ref such as `data.toolgate.authz.decision`, or undefined. */
  evalRule(ref: string, opts?: EvalOptions): Value | undefined;
}

export function compileModules(modules: readonly ModuleSource[], options: RegoCompileOptions = {}): RegoPolicy {
  const version = options.regoVersion ?? 'v1';
  // Each module parses on its own, and names its own file and place when it is nested too deeply.
  const parsed: Module[] = modules.map((m) => m.parsed ?? parseModule(m.text, m.name, version));
  return guardDepth(parsed, () => {
    rewriteMetadataCalls(parsed, modules.map((m) => m.text));
    return makePolicy(compiledPolicyOf(parsed, { knownToCompile: options.knownToCompile === true }), version);
  });
}

/**
 * Turns a JS stack overflow past the parser (a tree that parsed but is too deep to compile) into a
 * parse error at the deepest nesting of the most deeply nested module, the one that overflowed.
 */
function guardDepth<T>(modules: readonly Module[], fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    let deepest: Loc | undefined;
    let depth = 0;
    for (const m of modules) {
      const n = nestingOf(m);
      if (n !== undefined && n.depth > depth) ({ depth, loc: deepest } = n);
    }
    throw new RegoError('rego_parse_error', 'source nested too deeply', deepest);
  }
}

function makePolicy(compiled: CompiledPolicy, version: RegoVersion): RegoPolicy {
  const paths = new Map<string, string[]>();
  return {
    compiled,
    prepareQuery(query: string): PreparedQuery {
      const q = guardDepth([], () => compileQuery(parseQuery(query, 'query', version), compiled));
      return prepared(compiled, q, query);
    },
    evalRule(ref: string, opts: EvalOptions = {}): Value | undefined {
      let path = paths.get(ref);
      if (!path) {
        const parts = ref.split('.');
        if (parts[0] !== 'data') throw new RegoError('rego_parse_error', `entrypoint must start with data: ${ref}`);
        path = parts.slice(1);
        paths.set(ref, path);
      }
      return new Evaluator(compiled, opts).evalDataPath(path);
    },
  };
}

/**
 * Each expression's source text: from where it starts to where the next one (in the text) starts,
 * less the whitespace and `;` between them.
 */
function expressionSources(query: string, q: CompiledQuery): ExpressionSource[] {
  const lineStarts = [0];
  for (let i = 0; i < query.length; i++) if (query[i] === '\n') lineStarts.push(i + 1);
  const starts = q.body.map((l) => (lineStarts[l.loc.line - 1] ?? query.length) + l.loc.col - 1);
  const sorted = [...starts].sort((a, b) => a - b);
  return q.body.map((l, i) => {
    const start = starts[i]!;
    const end = sorted.find((x) => x > start) ?? query.length;
    return { text: query.slice(start, end).trim().replace(/;$/, '').trim(), line: l.loc.line, col: l.loc.col };
  });
}

function prepared(compiled: CompiledPolicy, q: CompiledQuery, query: string): PreparedQuery {
  return {
    vars: q.vars.map((v) => v.name),
    sources: expressionSources(query, q),
    evaluate(opts: EvalOptions = {}): QueryResult[] {
      const out: QueryResult[] = [];
      new Evaluator(compiled, opts).runQuery(q, (f, exprs) => {
        const bindings = new Map<string, Value>();
        for (const v of q.vars) {
          const x = f[v.slot];
          if (x !== undefined) bindings.set(v.name, x);
        }
        out.push({ expressions: exprs.slice(), bindings });
      });
      return out;
    },
  };
}

/** Parses a Rego term written as text (e.g. an `input_term`) into a value; refs and vars are refused. */
export function parseValueTerm(text: string): Value {
  const t = parseTerm(text);
  return termToValue(t, text);
}

function termToValue(t: Term, text: string): Value {
  const ev = compileModules([]);
  const q = compileQuery([{ negated: false, expr: { kind: 'term', term: t }, withs: [], loc: t.loc }], ev.compiled);
  const res = prepared(ev.compiled, q, text).evaluate();
  const v = res[0]?.expressions[0];
  if (v === undefined) throw new RegoError('rego_parse_error', 'term has no value', t.loc);
  return v;
}
