/** Where the pinned `opa` binary is, and a free loopback port to serve it (or anything) on. For tests and benches alike: no vitest here. */
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** $TOOLGATE_OPA, else .cache/bin/opa as scripts/install-go-tools.sh builds it. */
export const OPA_BINARY = process.env.TOOLGATE_OPA ?? fileURLToPath(new URL('../../.cache/bin/opa', import.meta.url));

/** A free loopback TCP port (bound and released; the caller binds it next). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
