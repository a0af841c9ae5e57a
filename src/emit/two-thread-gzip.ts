/**
 * gzip.ts's member made on two threads: this one and a worker deflate the chunks side by side,
 * each taking the next chunk no one has taken (an atomic counter in shared memory), so a worker
 * slow to start or a busy core costs only the chunks it did not take. The worker writes each
 * stream into shared memory, in room set aside for that chunk, and then its length; this thread,
 * once the counter is spent, takes what is written and makes itself whatever is not (the chunk the
 * worker is still on, or all of a worker that failed) rather than wait on a thread a loaded machine
 * may not run. A chunk's stream depends on that chunk alone (gzip.ts), so the bytes are those of
 * `gzipInChunks`, whichever thread made which.
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

/** Room for a chunk's stream: more than deflate ever writes for it (zlib's deflateBound plus the flush marker). */
function streamRoom(length: number): number {
  return length + (length >> 10) + 64;
}

/**
 * The worker, plain CommonJS so that it runs from src/ under any loader (tests, tsx) and from
 * dist/ alike: it deflates as `deflateChunk` does, with the same pako and parameters. A stream
 * longer than its room (never, by the bound) is marked -1 and left to the other thread.
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
parentPort.once('message', ({ bytes, jobs, next, out, lengths }) => {
  for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
    const job = jobs[i];
    const stream = deflateChunk(bytes.subarray(job.start, job.end), job.last);
    if (stream.length > job.room) Atomics.store(lengths, i, -1);
    else (out.set(stream, job.at), Atomics.store(lengths, i, stream.length));
  }
  parentPort.close();
});
`;

// Resolved when a worker is first started, not when this module loads (most commands never start one).
let pakoPath: string | undefined;

/** What both threads share: the input, the job counter, each job's room for its stream, and the stream lengths written. */
interface SharedJobs {
  readonly bytes: Uint8Array;
  readonly next: Int32Array;
  readonly out: Uint8Array;
  readonly at: readonly number[];
  readonly lengths: Int32Array;
}

function shareJobs(bytes: Uint8Array, jobs: readonly ChunkRange[]): SharedJobs {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  const at: number[] = [];
  let room = 0;
  for (const j of jobs) (at.push(room), (room += streamRoom(j.end - j.start)));
  // Only the pages a stream is written to are ever touched: the room costs no memory beyond them.
  return { bytes: shared, next: new Int32Array(new SharedArrayBuffer(4)), out: new Uint8Array(new SharedArrayBuffer(room)), at, lengths: new Int32Array(new SharedArrayBuffer(4 * jobs.length)) };
}

/** Starts a worker on the shared jobs; it stops by itself once the counter is spent. `exited` settles when it has. */
function startWorker(jobs: readonly ChunkRange[], shared: SharedJobs): { exited: Promise<void>; stop(): void } {
  let worker: Worker;
  try {
    pakoPath ??= createRequire(import.meta.url).resolve('pako');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pako: pakoPath, parameters: { ...GZIP_PARAMETERS } } });
  } catch {
    return { exited: Promise.resolve(), stop: () => undefined };
  }
  // A failed worker only leaves its chunks to this thread.
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const { bytes, next, out, at, lengths } = shared;
  worker.postMessage({ bytes, jobs: jobs.map(({ start, end, last }, i) => ({ start, end, last, at: at[i], room: streamRoom(end - start) })), next, out, lengths });
  return { exited, stop: () => void worker.terminate() };
}

/** The stream the worker wrote for job `i`, copied out of shared memory, or undefined if it has not. */
function writtenStream(shared: SharedJobs, i: number): Uint8Array | undefined {
  const length = Atomics.load(shared.lengths, i);
  return length > 0 ? shared.out.slice(shared.at[i], shared.at[i]! + length) : undefined;
}

/**
 * The streams of `ranges` as the worker alone makes them, by index: what `gzipInChunksOnTwoThreads`
 * takes from it (the test holds them equal to `deflateChunk`'s).
 */
export async function deflateOnWorker(bytes: Uint8Array, ranges: readonly ChunkRange[]): Promise<(Uint8Array | undefined)[]> {
  const shared = shareJobs(bytes, ranges);
  await startWorker(ranges, shared).exited;
  return ranges.map((_, i) => writtenStream(shared, i));
}

/**
 * What `gzipInChunks(bytes, reuse)` returns, made on two threads when enough is left to deflate.
 *
 * @example
 * const a = gzipInChunksOnTwoThreads(tarBytes);
 * // a.bytes equals gzipInChunks(tarBytes).bytes
 */
export function gzipInChunksOnTwoThreads(bytes: Uint8Array, reuse?: ReadonlyMap<string, Uint8Array>): { bytes: Uint8Array; chunks: DeflatedChunk[] } {
  const ranges = chunkRanges(bytes);
  const deflated: (Uint8Array | undefined)[] = ranges.map((r) => reuse?.get(r.digest));
  const jobs = ranges.filter((_, i) => deflated[i] === undefined);
  const jobIndex = ranges.flatMap((_, i) => (deflated[i] === undefined ? [i] : []));
  if (jobs.reduce((n, j) => n + (j.end - j.start), 0) >= TWO_THREAD_MIN_BYTES) {
    const shared = shareJobs(bytes, jobs);
    const worker = startWorker(jobs, shared);
    for (let i = Atomics.add(shared.next, 0, 1); i < jobs.length; i = Atomics.add(shared.next, 0, 1)) {
      deflated[jobIndex[i]!] = deflateChunk(bytes.subarray(jobs[i]!.start, jobs[i]!.end), jobs[i]!.last);
    }
    jobs.forEach((_, i) => (deflated[jobIndex[i]!] ??= writtenStream(shared, i)));
    worker.stop();
  }
  // Whatever no thread made yet (a small input, or a chunk the worker had not finished) is deflated here.
  return gzipMember(bytes, ranges, ranges.map((r, i) => deflated[i] ?? deflateChunk(bytes.subarray(r.start, r.end), r.last)));
}
