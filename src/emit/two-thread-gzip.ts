/**
 * gzip.ts's member made on two threads: this one and a worker deflate the chunks side by side,
 * each taking the next chunk no one has taken (an atomic counter in shared memory), so a worker
 * slow to start or a busy core costs only the chunks it did not take. The worker sends each
 * chunk's stream as soon as it is made, and this thread, once the counter is spent, makes itself
 * whatever has not arrived (the chunk the worker is still on, or all of a worker that failed)
 * rather than wait on a thread a loaded machine may not run. A chunk's stream depends on that
 * chunk alone (gzip.ts), so the bytes are those of `gzipInChunks`, whichever thread made which.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { chunkRanges, deflateChunk, GZIP_PARAMETERS, gzipMember, type ChunkRange, type DeflatedChunk } from './gzip.ts';

/**
 * Below this much input still to deflate, the worker costs more than it saves: it starts (~25 ms)
 * and runs pako cold while this thread warms up too (a 3 MB tarball, measured under load: ~160 ms
 * on one thread, ~210-450 ms on two).
 */
export const TWO_THREAD_MIN_BYTES = 8 * 1024 * 1024;

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
  for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
    const deflated = deflateChunk(bytes.subarray(jobs[i].start, jobs[i].end), jobs[i].last);
    parentPort.postMessage({ job: i, deflated }, [deflated.buffer]);
  }
});
`;

// Resolved when a worker is first started, not when this module loads (most commands never start one).
let pakoPath: string | undefined;

/**
 * A worker deflating `jobs` beside this thread: the streams it has sent so far, by job index (none
 * if it could not start), and `exited`, settled once it has stopped.
 */
function deflateInWorker(bytes: Uint8Array, jobs: readonly ChunkRange[], next: Int32Array): { received: ReadonlyMap<number, Uint8Array>; exited: Promise<void>; stop(): void } {
  const received = new Map<number, Uint8Array>();
  let worker: Worker;
  try {
    pakoPath ??= createRequire(import.meta.url).resolve('pako');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pako: pakoPath, parameters: { ...GZIP_PARAMETERS } } });
  } catch {
    return { received, exited: Promise.resolve(), stop: () => undefined };
  }
  worker.on('message', (m: { job: number; deflated: Uint8Array }) => received.set(m.job, m.deflated));
  // A failed worker only leaves its chunks to this thread.
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage({ bytes, jobs: jobs.map(({ start, end, last }) => ({ start, end, last })), next });
  return { received, exited, stop: () => void worker.terminate() };
}

/**
 * The streams of `ranges` as the worker alone makes them, by index: what `gzipInChunksOnTwoThreads`
 * takes from it (the test holds them equal to `deflateChunk`'s).
 */
export async function deflateOnWorker(bytes: Uint8Array, ranges: readonly ChunkRange[]): Promise<ReadonlyMap<number, Uint8Array>> {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  const worker = deflateInWorker(shared, ranges, new Int32Array(new SharedArrayBuffer(4)));
  // The worker exits once it has taken every job; its last message arrives before its exit.
  await worker.exited;
  return worker.received;
}

/** One turn of the event loop, in which the worker's sent streams are received. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
    for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
      deflated[jobIndex[i]!] = deflateChunk(bytes.subarray(jobs[i]!.start, jobs[i]!.end), jobs[i]!.last);
    }
    await nextTurn();
    worker.stop();
    for (const [job, stream] of worker.received) deflated[jobIndex[job]!] ??= stream;
  }
  // Whatever no thread made yet (a small input, or a worker that failed) is deflated here.
  return gzipMember(bytes, ranges, ranges.map((r, i) => deflated[i] ?? deflateChunk(bytes.subarray(r.start, r.end), r.last)));
}
