/**
 * A base document may not hold a value where a rule is defined: OPA refuses to compile a policy
 * whose rule path the data already fills (`conflicting rule for data path a/b found`), while data
 * beside or above a rule merges with it. This engine gets its data at evaluation, so it checks then.
 */
import type { DataNode } from './compiler.ts';
import { RegoError } from './errors.ts';
import { ObjectValue, type Value } from './value.ts';

/** Data documents already checked against a rule tree: a gateway evaluates one document many times. */
const checked = new WeakMap<DataNode, WeakSet<ObjectValue>>();

/** Walks the rule tree only where the data has values, so a data document beside the rules costs a few lookups. */
export function checkBaseConflicts(root: DataNode, data: Value | undefined): void {
  if (!(data instanceof ObjectValue)) return;
  let seen = checked.get(root);
  if (seen?.has(data)) return;
  walk(root, data);
  if (seen === undefined) checked.set(root, (seen = new WeakSet()));
  seen.add(data);
}

function walk(node: DataNode, data: ObjectValue): void {
  for (const [name, child] of node.children) {
    const v = data.get(name);
    if (v === undefined) continue;
    if (child.rules.length > 0 || child.funcs.length > 0) {
      throw conflict(child);
    }
    if (!child.hasRules) continue;
    // a value that is not an object cannot hold the rules below it
    if (!(v instanceof ObjectValue)) throw conflict(firstRuleNode(child));
    walk(child, v);
  }
}

function conflict(node: DataNode): RegoError {
  return new RegoError('rego_compile_error', `conflicting rule for data path ${node.path.join('/')} found`);
}

function firstRuleNode(node: DataNode): DataNode {
  if (node.rules.length > 0 || node.funcs.length > 0) return node;
  for (const c of node.children.values()) if (c.hasRules) return firstRuleNode(c);
  return node;
}
