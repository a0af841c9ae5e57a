/** The schema validators load the files of schemas/ by name: the list they name is the folder. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILES, validatorFor } from '../../../src/parse/schema-validators.ts';

describe('schema files', () => {
  it('SCHEMA_FILES names every *.schema.json of schemas/ and nothing else', () => {
    const onDisk = readdirSync(join(import.meta.dirname, '../../../schemas')).filter((n) => n.endsWith('.schema.json')).sort();
    expect([...SCHEMA_FILES].sort()).toEqual(onDisk);
  });

  it('every named schema compiles and judges a wrong document invalid', () => {
    for (const name of SCHEMA_FILES) {
      const validate = validatorFor(name);
      expect(validate(42), name).toBe(false);
    }
  });
});
