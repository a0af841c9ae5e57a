/**
 * Inflate and CRC-32 in WebAssembly (inflate.wat, compiled into inflate-wasm.ts), so that reading
 * an ordinary bundle and keying decide's certificates load no node:zlib: loading it and the streams
 * it pulls in, then making its first inflate stream, costs a CLI decide milliseconds, where
 * compiling and running this module costs well under one. A pure-JS inflate, run cold in so short a
 * process, costs more than zlib.
 *
 * The inflate is strict: it refuses (undefined) any stream zlib might read otherwise, and whatever
 * it refuses the caller hands to zlib, whose reading (and errors) are the reference. Without
 * WebAssembly (node --jitless) nothing is inflated here and the CRC-32 is zlib's.
 */
import { createRequire } from 'node:module';
import { INFLATE_WASM_BASE64 } from './inflate-wasm.ts';

let zlibModule: typeof import('node:zlib') | undefined;
/** node:zlib, loaded on first use. */
export const nodeZlib = (): typeof import('node:zlib') => (zlibModule ??= createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib'));

/** The part of the WebAssembly JS API used here (the ES2022 lib the compiler is given declares none). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown };
  readonly RuntimeError: new () => Error;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

interface InflateExports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  readonly streamEnd: { readonly value: number };
  init(): void;
  inflate(input: number, inputLength: number, output: number, outputCapacity: number): number;
  crc32(at: number, length: number, crc: number): number;
}

/** Where inflate.wat's memory holds the caller's bytes (its tables lie below). */
const INPUT_AT = 16_384;
const PAGE = 65_536;
/**
 * Larger streams (in or out) are left to zlib: the module's memory never shrinks, so a long-running
 * process reading a large bundle would keep it, and start-up is what this is for.
 */
export const STRICT_INFLATE_MAX_BYTES = 8 * 1024 * 1024;
/** CRC-32 input is copied into the module's memory this much at a time. */
const CRC_CHUNK = 1 << 20;

let engine: InflateExports | undefined;

function instance(): InflateExports | undefined {
  if (engine === undefined && wasm !== undefined) {
    const module = new wasm.Module(Buffer.from(INFLATE_WASM_BASE64, 'base64'));
    engine = new wasm.Instance(module, {}).exports as InflateExports;
    engine.init();
  }
  return engine;
}

/** The module's memory, grown to hold `bytes` from INPUT_AT. */
function memoryFor(e: InflateExports, bytes: number): Uint8Array {
  const have = e.memory.buffer.byteLength;
  if (INPUT_AT + bytes > have) e.memory.grow(Math.ceil((INPUT_AT + bytes - have) / PAGE));
  return new Uint8Array(e.memory.buffer);
}

/**
 * The raw deflate stream at the start of `deflated` inflated, when it inflates to exactly `size`
 * bytes: the bytes and the length of the stream. Undefined when the strict inflate refuses it (or
 * it inflates to another size): zlib's reading decides then.
 */
export function strictInflate(deflated: Uint8Array, size: number): { bytes: Buffer; used: number } | undefined {
  const e = instance();
  if (e === undefined || size > STRICT_INFLATE_MAX_BYTES || deflated.length > STRICT_INFLATE_MAX_BYTES) return undefined;
  let memory: Uint8Array;
  let written: number;
  const out = INPUT_AT + deflated.length;
  try {
    memory = memoryFor(e, deflated.length + size);
    memory.set(deflated, INPUT_AT);
    written = e.inflate(INPUT_AT, deflated.length, out, size);
  } catch (err) {
    // a trap is the module refusing the stream; a RangeError, memory it could not grow
    if (err instanceof wasm!.RuntimeError || err instanceof RangeError) return undefined;
    throw err;
  }
  if (written !== size) return undefined;
  return { bytes: Buffer.from(memory.subarray(out, out + size)), used: e.streamEnd.value - INPUT_AT };
}

/** CRC-32 (gzip's, zlib's crc32) of `data` (a string as its UTF-8 bytes), continuing from `crc`. */
export function crc32(data: Uint8Array | string, crc = 0): number {
  const e = instance();
  if (e === undefined) return nodeZlib().crc32(data, crc) >>> 0;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let c = crc;
  for (let at = 0; at < bytes.length || at === 0; at += CRC_CHUNK) {
    const part = bytes.subarray(at, at + CRC_CHUNK);
    memoryFor(e, part.length).set(part, INPUT_AT);
    c = e.crc32(INPUT_AT, part.length, c) >>> 0;
  }
  return c >>> 0;
}
