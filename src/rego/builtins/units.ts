/** units.parse and units.parse_bytes (see lib/units.ts for OPA's exact rules). */
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { builtinError, numberFromDecimalText, str } from './args.ts';
import { UnitsError, parseBytes, parseUnits } from './lib/units.ts';

function wrap(name: string, f: (s: string) => string): BuiltinDef {
  return {
    name,
    arity: 1,
    fn: (a) => {
      const s = str(name, a, 0);
      try {
        return numberFromDecimalText(f(s));
      } catch (e) {
        if (e instanceof UnitsError) throw builtinError(name, e.message.replace(`${name}: `, ''));
        throw e;
      }
    },
  };
}

export const UNITS_BUILTINS: BuiltinDef[] = [wrap('units.parse', parseUnits), wrap('units.parse_bytes', parseBytes)];

registerBuiltins(UNITS_BUILTINS);
