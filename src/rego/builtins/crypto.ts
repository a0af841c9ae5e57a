/** Hash and HMAC builtins (node:crypto). Signature verification is refused (see refused.ts). */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { str } from './args.ts';

function hash(name: string, algo: string): BuiltinDef {
  return { name, arity: 1, fn: (a) => createHash(algo).update(str(name, a, 0), 'utf8').digest('hex') };
}

function hmac(name: string, algo: string): BuiltinDef {
  return {
    name,
    arity: 2,
    fn: (a) => createHmac(algo, Buffer.from(str(name, a, 1), 'utf8')).update(str(name, a, 0), 'utf8').digest('hex'),
  };
}

export const CRYPTO_BUILTINS: BuiltinDef[] = [
  hash('crypto.md5', 'md5'),
  hash('crypto.sha1', 'sha1'),
  hash('crypto.sha256', 'sha256'),
  hmac('crypto.hmac.md5', 'md5'),
  hmac('crypto.hmac.sha1', 'sha1'),
  hmac('crypto.hmac.sha256', 'sha256'),
  hmac('crypto.hmac.sha512', 'sha512'),
  {
    name: 'crypto.hmac.equal',
    arity: 2,
    fn: (a) => {
      const x = Buffer.from(str('crypto.hmac.equal', a, 0), 'utf8');
      const y = Buffer.from(str('crypto.hmac.equal', a, 1), 'utf8');
      return x.length === y.length && timingSafeEqual(x, y);
    },
  },
];

registerBuiltins(CRYPTO_BUILTINS);
