/** Semantic Versioning 2.0.0: strict validation and precedence, as OPA's semver.* builtins apply it. */

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
}

const NUM = '0|[1-9][0-9]*';
const PRE_ID = `(?:${NUM}|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)`;
const SEMVER_RE = new RegExp(
  `^(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$`,
);

export function parseSemVer(s: string): SemVer | undefined {
  const m = SEMVER_RE.exec(s);
  if (m === null) return undefined;
  return {
    major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!),
    pre: m[4] === undefined ? [] : m[4].split('.'),
  };
}

function cmpBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpPreId(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) return cmpBig(BigInt(a), BigInt(b));
  if (an) return -1;
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** -1, 0 or 1 by SemVer precedence (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  const c = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const d = cmpPreId(a.pre[i]!, b.pre[i]!);
    if (d !== 0) return d;
  }
  return Math.sign(a.pre.length - b.pre.length);
}
