/**
 * The CRC-32 (gzip's, reflected polynomial 0xEDB88320) of two byte strings joined, from the CRC of
 * each and the length of the second: a member made of reused chunks gets its trailer's CRC without
 * reading their bytes again. CRC-32 is linear over GF(2), so the first CRC only has to be carried
 * past `length` zero bytes, which is a multiplication by x^(8 * length) modulo the polynomial; that
 * power is built from the squares x^(2^k) (zlib's crc32_combine works the same way).
 */

const POLYNOMIAL = 0xedb88320;

/** a * b modulo the polynomial, both as reflected 32-bit polynomials (bit 31 is x^0). */
function multiply(a: number, b: number): number {
  let product = 0;
  for (let bit = 0x80000000; a !== 0; bit >>>= 1) {
    if ((a & bit) !== 0) {
      product ^= b;
      a ^= bit;
    }
    b = b & 1 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0..31 (the exponent cycles with a period dividing 2^32 - 1). */
const SQUARES = (() => {
  const table = new Array<number>(32);
  let p = 0x40000000; // x^1
  for (let k = 0; k < 32; k++) {
    table[k] = p;
    p = multiply(p, p);
  }
  return table;
})();

/** x^(8 * length) modulo the polynomial: the operator that carries a CRC past `length` bytes. */
function bytePower(length: number): number {
  let power = 0x80000000; // x^0
  // length * 8 = length * 2^3, so the bits of length select the squares from x^(2^3) up.
  for (let k = 3; length > 0; k++, length = Math.floor(length / 2)) {
    if (length % 2 === 1) power = multiply(SQUARES[k % 32]!, power);
  }
  return power;
}

/**
 * CRC-32 of A followed by B, given crc32(A), crc32(B) and B's length.
 *
 * @example crc32Combine(crc32(a), crc32(b), b.length) === crc32(Buffer.concat([a, b]))
 */
export function crc32Combine(first: number, second: number, secondLength: number): number {
  return (multiply(bytePower(secondLength), first >>> 0) ^ (second >>> 0)) >>> 0;
}
