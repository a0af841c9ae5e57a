/** Reading an input file: UTF-8 checked before it is decoded, a BOM dropped, located errors. */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTextFile } from '../../../src/cli/fs-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-fs-io-'));
const file = (name: string, bytes: Uint8Array | string): string => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

describe('readTextFile', () => {
  it('decodes UTF-8 and drops a leading BOM', () => {
    expect(readTextFile(file('plain.yaml', 'a: é\n'))).toBe('a: é\n');
    expect(readTextFile(file('bom.yaml', '\uFEFFa: 1\n'))).toBe('a: 1\n');
  });

  it('refuses bytes that are not UTF-8, naming the file, the line and column, and the byte', () => {
    for (const [name, bytes, line, col, lead] of [
      ['overlong.yaml', [0x61, 0xc0, 0xaf], 1, 2, 'c0'],
      ['surrogate.yaml', [0xed, 0xa0, 0x80], 1, 1, 'ed'],
      ['truncated.yaml', [0x61, 0x0a, 0xc3, 0xa9, 0xe2, 0x82], 2, 2, 'e2'],
    ] as const) {
      const path = file(name, new Uint8Array(bytes));
      expect(() => readTextFile(path)).toThrowError(
        expect.objectContaining({ code: 'PARSE_ERROR', message: `not valid UTF-8: the sequence starting with byte 0x${lead} does not decode`, at: [{ file: path, line, col }] }),
      );
    }
  });

  it('refuses a folder as unreadable', () => {
    expect(() => readTextFile(dir)).toThrowError(expect.objectContaining({ code: 'FILE_UNREADABLE', at: [{ file: dir }] }));
  });
});
