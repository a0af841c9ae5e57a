/** Go's path globbing, which OPA applies to a verifier's excluded-file patterns. */

/** Go's `filepath.Match` (Unix): `*` and `?` never match `/`, `[...]` classes with `^` and ranges, `\` escapes; a malformed pattern matches nothing. */
export function goGlobMatch(glob: string, name: string): boolean {
  const esc = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  let re = '';
  const cps = [...glob];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= cps.length) return false;
      re += esc(cps[++i]!);
    } else if (c === '[') {
      let cls = '';
      i++;
      if (cps[i] === '^') {
        cls += '^';
        i++;
      }
      let n = 0;
      for (;;) {
        if (i >= cps.length) return false;
        if (cps[i] === ']' && n > 0) break;
        const lo = cps[i] === '\\' ? cps[++i] : cps[i];
        if (lo === undefined || lo === '-' || (lo === ']' && cps[i - 1] !== '\\')) return false;
        i++;
        if (cps[i] === '-' && cps[i + 1] !== ']') {
          const hi = cps[i + 1] === '\\' ? cps[i + 2] : cps[i + 1];
          if (hi === undefined || hi === '-') return false;
          if (lo > hi) return false;
          i += cps[i + 1] === '\\' ? 3 : 2;
          cls += `${esc(lo)}-${esc(hi)}`;
        } else {
          cls += esc(lo);
        }
        n++;
      }
      re += `[${cls}]`;
    } else re += esc(c);
  }
  return new RegExp(`^${re}$`, 'u').test(name);
}
