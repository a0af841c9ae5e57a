/**
 * Which rule documents of a compiled policy depend on `data` alone: their value is the same for every
 * `input` as long as the data document is the same, so an engine that evaluates one policy over many
 * inputs with one data document (sign slots: one query per connectome edge) can compute each of them
 * once and share it across evaluations (the evaluator's `SharedDocs`, keyed on the data value's identity).
 *
 * A rule node is data-only unless one of its rules (bodies, heads, else branches, and the functions
 * it calls, transitively) may read `input`, uses `with`, calls a builtin whose result depends on the
 * evaluation (time, randomness, network, print/trace output), or reads another rule node that is not
 * data-only. The analysis is conservative: a data ref with a non-constant step depends on every rule
 * node below the step, and anything it cannot place counts as input-dependent.
 */
import type { Literal, Term } from './ast.ts';
import { lookupBuiltin } from './builtins/registry.ts';
import type { CompiledPolicy, CRule, DataNode } from './compiler.ts';
import { walkLiteral, walkTerms } from './term-walk.ts';

/** Builtins whose result can differ between evaluations with the same operands (besides those the registry marks). */
const EVALUATION_DEPENDENT = /^(print|trace|opa\.runtime|http\.|net\.lookup|io\.jwt\.decode_verify|crypto\.x509\.parse_and_verify|time\.now)/;

interface Reads {
  /** The rule may read `input`, uses `with`, or calls an evaluation-dependent builtin. */
  tainted: boolean;
  /** Rule nodes read. */
  nodes: Set<DataNode>;
  /** Functions called, by dotted path. */
  funcs: Set<string>;
}

function ruleNodes(node: DataNode, out: DataNode[] = []): DataNode[] {
  if (node.rules.length) out.push(node);
  for (const c of node.children.values()) if (c.hasRules || c.funcs.length) ruleNodes(c, out);
  return out;
}

/** Every node with rules at or below `node`. */
function subtree(node: DataNode, into: Set<DataNode>): void {
  if (node.rules.length) into.add(node);
  for (const c of node.children.values()) if (c.hasRules) subtree(c, into);
}

function readsOfRef(root: DataNode, t: Term & { type: 'ref' }, r: Reads): void {
  let node = root;
  for (const step of t.path) {
    if (node.rules.length) r.nodes.add(node);
    if (node.funcs.length) r.funcs.add(['data', ...node.path].join('.'));
    if (step.type !== 'value' || typeof step.value !== 'string') {
      subtree(node, r.nodes);
      return;
    }
    const child = node.children.get(step.value);
    if (!child) return; // past the rule tree: plain data
    node = child;
  }
  subtree(node, r.nodes);
  if (node.funcs.length) r.funcs.add(['data', ...node.path].join('.'));
}

function collect(policy: CompiledPolicy, rules: readonly CRule[], withArgs: boolean): Reads {
  const r: Reads = { tainted: false, nodes: new Set(), funcs: new Set() };
  // Ref heads already placed by their ref (a walk visits a ref, then its head).
  const placed = new WeakSet<Term>();
  const visit = (t: Term) => {
    switch (t.type) {
      case 'var':
        if (t.slot === undefined && t.name === 'input') r.tainted = true;
        if (t.slot === undefined && t.name === 'data' && !placed.has(t)) subtree(policy.root, r.nodes);
        break;
      case 'ref':
        if (t.head.type === 'var' && t.head.slot === undefined && t.head.name === 'data') {
          placed.add(t.head);
          readsOfRef(policy.root, t, r);
        }
        break;
      case 'call': {
        const target = t.target;
        if (!target) r.tainted = true;
        else if (target.kind === 'func') r.funcs.add(target.path);
        else if (lookupBuiltin(target.name)?.nondeterministic || EVALUATION_DEPENDENT.test(target.name)) r.tainted = true;
        break;
      }
      default:
        break;
    }
  };
  const visitLiteral = (l: Literal) => {
    if (l.withs.length) r.tainted = true;
    walkLiteral(l, visit);
  };
  const all: CRule[] = [];
  const addElses = (x: CRule) => {
    all.push(x);
    for (const e of x.elses) addElses(e);
  };
  for (const x of rules) addElses(x);
  for (const x of all) {
    for (const l of x.body) visitLiteral(l);
    walkTerms(x.value, visit);
    if (x.key) walkTerms(x.key, visit);
    for (const t of x.rest) walkTerms(t, visit);
    if (withArgs) for (const a of x.args) walkTerms(a, visit);
  }
  return r;
}

/**
 * The rule nodes of `policy` whose documents depend on `data` only.
 *
 * @example
 *   const shared = { nodes: dataOnlyNodes(policy.compiled), data, docs: new Map() };
 *   policy.evalRule('data.toolgate.signs.sign', { input, data, shared });
 */
export function dataOnlyNodes(policy: CompiledPolicy): Set<DataNode> {
  const nodes = ruleNodes(policy.root);
  const reads = new Map<DataNode, Reads>();
  for (const n of nodes) {
    const r = collect(policy, n.rules, false);
    // A node's document merges the documents of the rule nodes below it.
    for (const c of n.children.values()) if (c.hasRules) subtree(c, r.nodes);
    reads.set(n, r);
  }
  const funcReads = new Map<string, Reads>();
  for (const [path, rules] of policy.funcs) funcReads.set(path, collect(policy, rules, true));

  // A function is evaluation-dependent when its body (or a function it calls) is tainted or reads a tainted node.
  const tainted = new Set<DataNode>();
  const taintedFuncs = new Set<string>();
  for (const [n, r] of reads) if (r.tainted) tainted.add(n);
  for (const [p, r] of funcReads) if (r.tainted) taintedFuncs.add(p);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [p, r] of funcReads) {
      if (taintedFuncs.has(p)) continue;
      if ([...r.funcs].some((f) => taintedFuncs.has(f) || !funcReads.has(f)) || [...r.nodes].some((n) => tainted.has(n))) {
        taintedFuncs.add(p);
        changed = true;
      }
    }
    for (const [n, r] of reads) {
      if (tainted.has(n)) continue;
      if ([...r.funcs].some((f) => taintedFuncs.has(f) || !funcReads.has(f)) || [...r.nodes].some((m) => m !== n && tainted.has(m))) {
        tainted.add(n);
        changed = true;
      }
    }
  }
  return new Set(nodes.filter((n) => !tainted.has(n)));
}
