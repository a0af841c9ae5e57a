/**
 * The shape of a compiled policy's rule tree, without its rules: where rules are defined. Kept
 * beside a cached compile so that a caller evaluating only part of the modules can still refuse a
 * data document that conflicts with a rule of the parts it left out, with the same error the whole
 * policy gives (base-conflicts.ts walks the outline as it walks the tree).
 */
import { checkBaseConflicts } from './base-conflicts.ts';
import type { CRule, DataNode } from './compiler.ts';
import { RegoError } from './errors.ts';
import { ObjectValue, type Value } from './value.ts';

/** A node: `r` when rules or functions end here, then its children below which rules are defined. */
export interface RuleOutline {
  readonly r: boolean;
  readonly c: readonly (readonly [string, RuleOutline])[];
}

export function ruleOutlineOf(node: DataNode): RuleOutline {
  const c: [string, RuleOutline][] = [];
  for (const [name, child] of node.children) if (child.hasRules || child.rules.length > 0 || child.funcs.length > 0) c.push([name, ruleOutlineOf(child)]);
  return { r: node.rules.length > 0 || node.funcs.length > 0, c };
}

/** Whether a value read back from a cache is an outline (anything else is a damaged entry). */
export function isRuleOutline(v: unknown, depth = 0): v is RuleOutline {
  if (depth > 256 || typeof v !== 'object' || v === null) return false;
  const o = v as { r?: unknown; c?: unknown };
  return typeof o.r === 'boolean' && Array.isArray(o.c) && o.c.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && isRuleOutline(e[1], depth + 1));
}

// base-conflicts.ts only asks whether a node has rules, not what they are.
const SOME_RULE = [{} as CRule];

/**
 * The outline as the rule tree base-conflicts.ts walks. Given the data below it (`under`), only the
 * children the data has a value at are made, as the walk visits no others (below a value that is not
 * an object all are: the walk names the first rule under it); undefined makes the whole tree.
 */
function treeOf(o: RuleOutline, path: string[], under?: ObjectValue): DataNode {
  const children = new Map<string, DataNode>();
  for (const [name, child] of o.c) {
    if (under === undefined) {
      children.set(name, treeOf(child, [...path, name]));
      continue;
    }
    const v = under.get(name);
    if (v !== undefined) children.set(name, treeOf(child, [...path, name], v instanceof ObjectValue ? v : undefined));
  }
  return { path, children, rules: o.r ? SOME_RULE : [], funcs: [], hasRules: o.r || o.c.length > 0 };
}

/** The error evaluating the whole policy against `data` would give for a rule the data fills, if any. */
export function outlineConflict(outline: RuleOutline, data: Value): RegoError | undefined {
  if (!(data instanceof ObjectValue)) return undefined;
  try {
    checkBaseConflicts(treeOf(outline, [], data), data);
    return undefined;
  } catch (e) {
    if (e instanceof RegoError) return e;
    throw e;
  }
}
