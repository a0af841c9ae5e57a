/** DOT text helpers for the report's pictures: quoting, and a cap on how much a picture may show. */

export function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** Pictures beyond this many nodes show only their highlighted part (a browser cannot lay out 20,000 tools usefully). */
export const MAX_PICTURE_NODES = 400;

export function attrs(a: Record<string, string | number | undefined>): string {
  const parts = Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? v : q(v!)}`);
  return parts.length === 0 ? '' : ` [${parts.join(', ')}]`;
}
