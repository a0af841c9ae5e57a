/** Bitwise builtins over arbitrary-size integers (two's complement semantics, as Go's big.Int). */
import { normBigInt } from '../number-value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { BuiltinError, builtinError, int } from './args.ts';

function binary(name: string, op: (x: bigint, y: bigint) => bigint): BuiltinDef {
  return { name, arity: 2, fn: (a) => normBigInt(op(int(name, a, 0), int(name, a, 1))) };
}

const MAX_SHIFT = 1n << 20n;

export const BITS_BUILTINS: BuiltinDef[] = [
  binary('bits.and', (x, y) => x & y),
  binary('bits.or', (x, y) => x | y),
  binary('bits.xor', (x, y) => x ^ y),
  { name: 'bits.negate', arity: 1, fn: (a) => normBigInt(~int('bits.negate', a, 0)) },
  {
    name: 'bits.lsh',
    arity: 2,
    fn: (a) => {
      const x = int('bits.lsh', a, 0);
      const s = int('bits.lsh', a, 1);
      if (s < 0n) throw new BuiltinError('eval_type_error', 'bits.lsh: operand 2 must be an unsigned integer number but got a negative integer');
      if (s > MAX_SHIFT) throw builtinError('bits.lsh', 'shift too large');
      return normBigInt(x << s);
    },
  },
  {
    name: 'bits.rsh',
    arity: 2,
    fn: (a) => {
      const x = int('bits.rsh', a, 0);
      const s = int('bits.rsh', a, 1);
      if (s < 0n) throw new BuiltinError('eval_type_error', 'bits.rsh: operand 2 must be an unsigned integer number but got a negative integer');
      return normBigInt(s > MAX_SHIFT ? (x < 0n ? -1n : 0n) : x >> s);
    },
  },
];

registerBuiltins(BITS_BUILTINS);
