/**
 * "Did you mean" for words the user typed: the closest known word by edit distance
 * (Damerau-Levenshtein, optimal string alignment: a swap of two neighbours costs one, the most
 * common typo), offered only when it is close enough to be a plausible typo.
 */

/** Edit distance between `a` and `b`: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word closest to `typed`, or undefined when none is a plausible typo of it: at most a
 * third of the longer word may differ (at least one edit), so `dif` finds `diff` but `x` finds
 * nothing. A known word that starts with what was typed (`check` for `check-access`) also counts.
 * Ties go to the word listed first, so the answer is deterministic.
 *
 * @example
 * closestWord('compiel', ['compile', 'crawl']); // 'compile'
 */
export function closestWord(typed: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  const t = typed.toLowerCase();
  for (const word of known) {
    const w = word.toLowerCase();
    if (w === t) return word;
    const distance = editDistance(t, w);
    const limit = Math.max(1, Math.floor(Math.max(t.length, w.length) / 3));
    const plausible = distance <= limit || (t.length >= 3 && w.startsWith(t));
    if (plausible && (!best || distance < best.distance)) best = { word, distance };
  }
  return best?.word;
}

/** `; did you mean "X"?` when a close word exists, else the empty string: ready to append to a message. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const word = closestWord(typed, known);
  return word === undefined ? '' : `; did you mean ${JSON.stringify(word)}?`;
}
