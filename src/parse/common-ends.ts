/** Where two versions of a text begin to differ, from the front and from the back. */

/**
 * How many characters two texts share at their start, and at their end (at most `most`), compared a
 * block at a time: comparing slices runs at memory speed, a loop over characters ten times slower.
 */
const BLOCKS = [65536, 4096, 256];

export function commonHead(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let n = 0;
  for (const step of BLOCKS) while (n + step <= most && a.slice(n, n + step) === b.slice(n, n + step)) n += step;
  while (n < most && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

export function commonTail(a: string, b: string, most: number): number {
  let n = 0;
  for (const step of BLOCKS) while (n + step <= most && a.slice(a.length - n - step, a.length - n) === b.slice(b.length - n - step, b.length - n)) n += step;
  while (n < most && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}
