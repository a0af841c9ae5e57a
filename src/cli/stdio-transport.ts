/**
 * The stdio transport of `toolgate serve` (MCP stdio: one JSON-RPC message per line on stdin and
 * stdout), with the checks the HTTP side makes (../serve/http-guard.ts): a line is at most
 * MAX_BODY_BYTES, one message or a batch of 1 to MAX_BATCH, read by the strict JSON reader, and
 * anything else is answered with a JSON-RPC error line instead of being dropped in silence (the
 * SDK's own stdio transport answers nothing to a line it cannot read). A batch's messages are
 * handled one by one, each answer on its own line.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JSONRPC_INVALID_REQUEST, MAX_BODY_BYTES, checkBody } from '../serve/http-guard.ts';

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The current line passed MAX_BODY_BYTES: it is skipped up to its newline. */
  private skipping = false;
  private readonly onData = (chunk: Buffer) => this.take(chunk);

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.onclose?.();
  }

  private take(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      this.append(chunk.subarray(from, nl));
      this.endLine();
      from = nl + 1;
    }
    this.append(chunk.subarray(from));
  }

  private append(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > MAX_BODY_BYTES) {
      this.skipping = true;
      this.pending = [];
      this.refuse(JSONRPC_INVALID_REQUEST, `message larger than ${MAX_BODY_BYTES} bytes`);
      return;
    }
    this.pending.push(Buffer.from(part));
  }

  private endLine(): void {
    const line = Buffer.concat(this.pending);
    const skipped = this.skipping;
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = false;
    if (skipped) return;
    if (line.every((b) => b === 32 || b === 9 || b === 13)) return;
    const checked = checkBody(line[line.length - 1] === 13 ? line.subarray(0, -1) : line);
    if (!checked.ok) return this.refuse(checked.refusal.code, checked.refusal.message);
    for (const item of Array.isArray(checked.value) ? checked.value : [checked.value]) {
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) {
        const id = (item as { id?: unknown }).id;
        this.refuse(JSONRPC_INVALID_REQUEST, 'invalid request: not a JSON-RPC 2.0 message', typeof id === 'string' || typeof id === 'number' ? id : null);
        continue;
      }
      this.onmessage?.(parsed.data);
    }
  }

  private refuse(code: number, message: string, id: string | number | null = null): void {
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }
}
