/** glob.match and glob.quote_meta (gobwas/glob semantics, see lib/glob.ts; matched by RE2 in linear time). */
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { arg, builtinError, elementError, oneOfError, str } from './args.ts';
import { matchCost } from './regex.ts';
import { GlobSyntaxError, globMatch, globQuoteMeta } from './lib/glob.ts';

export const GLOB_BUILTINS: BuiltinDef[] = [
  {
    name: 'glob.match',
    arity: 3,
    fn: (a, ctx) => {
      const name = 'glob.match';
      ctx.budget?.work(matchCost(a));
      const pattern = str(name, a, 0);
      const d = arg(a, 1);
      let delimiters: string[];
      if (d === null) delimiters = [];
      else if (Array.isArray(d)) {
        // OPA takes each delimiter as one rune: a string of any other length is refused.
        delimiters = d.map((x) => {
          if (typeof x !== 'string') throw elementError(name, 2, d, 'string', x);
          if (Array.from(x).length !== 1) throw elementError(name, 2, d, 'rune', x);
          return x;
        });
        if (delimiters.length === 0) delimiters = ['.'];
      } else throw oneOfError(name, 2, ['array', 'null'], d);
      const subject = str(name, a, 2);
      try {
        return globMatch(pattern, delimiters, subject);
      } catch (e) {
        if (e instanceof GlobSyntaxError) throw builtinError(name, e.message);
        throw e;
      }
    },
  },
  { name: 'glob.quote_meta', arity: 1, fn: (a) => globQuoteMeta(str('glob.quote_meta', a, 0)) },
];

registerBuiltins(GLOB_BUILTINS);
