/**
 * The permutation that puts a graph's edges in canonical order, from integer codes alone: each
 * edge's `from` as a node position and its `rest` (to position, kind rank and provenance rank
 * packed as buildGraph packs them, below node count x 8), so no edge object or string is compared.
 */

/**
 * The order that sorts edges by (from position, rest), or undefined when they are sorted
 * already (strictly: a repeated edge always goes through the sort, where repeats are found).
 * Two stable counting sorts (rest, then from) keep it linear; a handful of edges over many
 * nodes uses a comparison sort instead of counting arrays sized by the node count.
 */
export function edgeOrder(fromAt: Int32Array, rest: Int32Array, count: number, nodeCount: number): Int32Array | undefined {
  let sorted = true;
  for (let i = 1; i < count && sorted; i++) {
    const a = fromAt[i - 1]!;
    const b = fromAt[i]!;
    if (a > b || (a === b && rest[i - 1]! >= rest[i]!)) sorted = false;
  }
  if (sorted) return undefined;
  const order = new Int32Array(count);
  if (count < 64 || count * 2 < nodeCount) {
    for (let i = 0; i < count; i++) order[i] = i;
    return order.sort((x, y) => fromAt[x]! - fromAt[y]! || rest[x]! - rest[y]!);
  }
  const byRest = new Int32Array(count);
  const restCounts = new Int32Array(nodeCount * 8 + 1);
  for (let i = 0; i < count; i++) restCounts[rest[i]! + 1]!++;
  for (let v = 1; v < restCounts.length; v++) restCounts[v]! += restCounts[v - 1]!;
  for (let i = 0; i < count; i++) byRest[restCounts[rest[i]!]!++] = i;
  const fromCounts = new Int32Array(nodeCount + 1);
  for (let i = 0; i < count; i++) fromCounts[fromAt[i]! + 1]!++;
  for (let v = 1; v < fromCounts.length; v++) fromCounts[v]! += fromCounts[v - 1]!;
  for (let k = 0; k < count; k++) {
    const i = byRest[k]!;
    order[fromCounts[fromAt[i]!]!++] = i;
  }
  return order;
}
