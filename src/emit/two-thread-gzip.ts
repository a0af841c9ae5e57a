/**
 * gzip.ts's member made on two threads: this one and a worker deflate the chunks side by side,
 * each taking the next chunk no one has taken (an atomic counter in shared memory), so a worker
 * slow to start or a busy core costs only the chunks it did not take. A chunk's stream depends on
 * that chunk alone (gzip.ts), so the bytes are those of `gzipInChunks`, whichever thread made
 * which chunk; a worker that cannot start or fails leaves its chunks to this thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { chunkRanges, deflateChunk, GZIP_PARAMETERS, gzipMember, type ChunkRange, type DeflatedChunk } from './gzip.ts';

/** Below this much input still to deflate, a worker's start-up (~25 ms) costs more than it saves. */
export const TWO_THREAD_MIN_BYTES = 2 * 1024 * 1024;

/**
 * The worker, plain CommonJS so that it runs from src/ under any loader (tests, tsx) and from
 * dist/ alike: it deflates as `deflateChunk` does, with the same pako and parameters.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Deflate, deflateRaw, Z_SYNC_FLUSH } = require(workerData.pako);
const parameters = workerData.parameters;
function deflateChunk(chunk, last) {
  if (last) return deflateRaw(chunk, { ...parameters });
  const d = new Deflate({ ...parameters, raw: true });
  d.push(chunk, Z_SYNC_FLUSH);
  const out = new Uint8Array(d.chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of d.chunks) (out.set(c, at), (at += c.length));
  return out;
}
parentPort.once('message', ({ bytes, jobs, next }) => {
  const done = [];
  for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
    done.push({ job: i, deflated: deflateChunk(bytes.subarray(jobs[i].start, jobs[i].end), jobs[i].last) });
  }
  parentPort.postMessage(done, done.map((d) => d.deflated.buffer));
});
`;

const pakoPath = createRequire(import.meta.url).resolve('pako');

/** The streams a worker deflated, by job index; empty when it could not start or failed. */
function deflateInWorker(bytes: Uint8Array, jobs: readonly ChunkRange[], next: Int32Array): { done: Promise<Map<number, Uint8Array>>; stop(): void } {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pako: pakoPath, parameters: { ...GZIP_PARAMETERS } } });
  } catch {
    return { done: Promise.resolve(new Map()), stop: () => undefined };
  }
  const done = new Promise<Map<number, Uint8Array>>((resolve) => {
    worker.once('message', (results: { job: number; deflated: Uint8Array }[]) => resolve(new Map(results.map((r) => [r.job, r.deflated]))));
    worker.once('error', () => resolve(new Map()));
    worker.once('exit', () => resolve(new Map()));
  });
  worker.postMessage({ bytes, jobs: jobs.map(({ start, end, last }) => ({ start, end, last })), next });
  return { done, stop: () => void worker.terminate() };
}

/**
 * What `gzipInChunks(bytes, reuse)` returns, made on two threads when enough is left to deflate.
 *
 * @example
 * const a = await gzipInChunksOnTwoThreads(tarBytes);
 * // a.bytes equals gzipInChunks(tarBytes).bytes
 */
export async function gzipInChunksOnTwoThreads(bytes: Uint8Array, reuse?: ReadonlyMap<string, Uint8Array>): Promise<{ bytes: Uint8Array; chunks: DeflatedChunk[] }> {
  const ranges = chunkRanges(bytes);
  const deflated: (Uint8Array | undefined)[] = ranges.map((r) => reuse?.get(r.digest));
  const jobs = ranges.filter((_, i) => deflated[i] === undefined);
  const jobIndex = ranges.flatMap((_, i) => (deflated[i] === undefined ? [i] : []));
  if (jobs.reduce((n, j) => n + (j.end - j.start), 0) >= TWO_THREAD_MIN_BYTES) {
    // Both threads read the input from shared memory and take jobs from one counter.
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
    const next = new Int32Array(new SharedArrayBuffer(4));
    const worker = deflateInWorker(shared, jobs, next);
    let taken = 0;
    for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1), taken++) {
      deflated[jobIndex[i]!] = deflateChunk(bytes.subarray(jobs[i]!.start, jobs[i]!.end), jobs[i]!.last);
    }
    // A worker that took nothing (still starting when this thread was done) is not waited for.
    const fromWorker = taken === jobs.length ? new Map<number, Uint8Array>() : await worker.done;
    worker.stop();
    for (const [job, stream] of fromWorker) deflated[jobIndex[job]!] = stream;
  }
  // Whatever no thread made yet (a small input, or a worker that failed) is deflated here.
  return gzipMember(bytes, ranges, ranges.map((r, i) => deflated[i] ?? deflateChunk(bytes.subarray(r.start, r.end), r.last)));
}
