/**
 * The strict JSON reader every JSON input goes through (src/canonical/strict-json.ts), against
 * JSON.parse, which it replaced there, on a synthetic catalog of 50,000 tools (~32 MB, with
 * non-ASCII text so parseText's NFC key check runs too). Median of 7 runs, same process.
 * `npm run bench -- json-input`
 */
import { parseJsonInput } from '../src/canonical/strict-json.ts';
import { parseText } from '../src/parse/document.ts';

const servers = Array.from({ length: 200 }, (_, s) => ({
  name: `srv${s}`,
  tools: Array.from({ length: 250 }, (_, t) => ({
    name: `tool_${t}`,
    description: `Tool ${t} of server ${s} does a thing — with some words in it, café`,
    inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'a path' }, limit: { type: 'integer', minimum: 0, maximum: 1000 } }, required: ['path'] },
    annotations: { readOnlyHint: t % 2 === 0 },
  })),
}));
const text = JSON.stringify({ servers }, null, 2);

function median(f: () => unknown): number {
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    f();
    runs.push(performance.now() - t);
  }
  return runs.sort((a, b) => a - b)[3]!;
}

const base = median(() => JSON.parse(text));
const strict = median(() => parseJsonInput(text, 'catalog.json'));
const document = median(() => parseText('catalog.json', text));
console.log(`catalog ${(text.length / 1e6).toFixed(1)} MB`);
console.log(`JSON.parse              ${base.toFixed(0)} ms`);
console.log(`parseJsonInput          ${strict.toFixed(0)} ms (${(strict / base).toFixed(2)}x)`);
console.log(`parseText (+ NFC check) ${document.toFixed(0)} ms (${(document / base).toFixed(2)}x)`);
