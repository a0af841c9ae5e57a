// Lets @modelcontextprotocol/conformance (which asks for Node 22) run on Node 20: its one Node-22
// API, fs.globSync, serves only the `tier-check` command, which toolgate's test never runs. A load
// hook replaces that import with a stub that says so; every other line of the suite runs as shipped.
import { register } from 'node:module';

register('./conformance-node20-hooks.mjs', import.meta.url);
