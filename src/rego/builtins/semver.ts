/** semver.is_valid and semver.compare (SemVer 2.0.0, strict). */
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { arg, builtinError, str } from './args.ts';
import { compareSemVer, parseSemVer } from './lib/semver.ts';

export const SEMVER_BUILTINS: BuiltinDef[] = [
  {
    name: 'semver.is_valid',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      return typeof v === 'string' && parseSemVer(v) !== undefined;
    },
  },
  {
    name: 'semver.compare',
    arity: 2,
    fn: (a) => {
      const name = 'semver.compare';
      const x = str(name, a, 0);
      const y = str(name, a, 1);
      const vx = parseSemVer(x);
      if (vx === undefined) throw builtinError(name, `operand 1: string ${JSON.stringify(x)} is not a valid SemVer`);
      const vy = parseSemVer(y);
      if (vy === undefined) throw builtinError(name, `operand 2: string ${JSON.stringify(y)} is not a valid SemVer`);
      return compareSemVer(vx, vy);
    },
  },
];

registerBuiltins(SEMVER_BUILTINS);
