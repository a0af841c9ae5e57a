// Load hook for conformance-node20.mjs: rewrites the suite's `globSync` import from "fs".
const SUITE = /@modelcontextprotocol\/conformance\/dist\/index\.js$/;
const IMPORT = 'globSync as o,';

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!SUITE.test(url)) return loaded;
  const source = String(loaded.source);
  if (!source.includes(IMPORT)) throw new Error(`conformance-node20: ${url} no longer imports globSync as expected; update the hook`);
  const stub = 'throw new Error("fs.globSync needs Node 22: tier-check cannot run here")';
  // Appended: function declarations hoist, and a leading #! line must stay first.
  return { ...loaded, source: `${source.replace(IMPORT, '')}\nfunction o(){${stub}}` };
}
