import { createHash, randomBytes } from 'node:crypto';
import type { PutToolOutput, PutToolOutputStream, ToolOutputRef } from '@strata/context';
import { StoreInputError } from './errors/store-input-error.js';
import { requireKey } from './store-key.js';
import { isWellFormedText } from './well-formed-text.js';

/**
 * How a body is kept on disk. `utf8` for every well-formed string (the usual
 * case, compact for ASCII); `utf16le` for a string holding a lone surrogate,
 * which UTF-8 cannot carry: its code units are kept as they are, so even such
 * a body round-trips byte-exact (as the same UTF-16 code units).
 */
export type BodyEncoding = 'utf8' | 'utf16le';

export interface EncodedBody {
  readonly encoding: BodyEncoding;
  readonly bytes: Buffer;
  /** SHA-256 of `bytes`, lowercase hex; checked on every read. */
  readonly sha256: string;
}

export function encodeBody(body: string): EncodedBody {
  const encoding: BodyEncoding = isWellFormedText(body) ? 'utf8' : 'utf16le';
  const bytes = Buffer.from(body, encoding);
  return { encoding, bytes, sha256: sha256Hex(bytes) };
}

/** Undefined when the bytes no longer match the checksum written with them. */
export function decodeBody(stored: { readonly encoding: string; readonly bytes: Uint8Array; readonly sha256: string }): string | undefined {
  const bytes = Buffer.isBuffer(stored.bytes) ? stored.bytes : Buffer.from(stored.bytes.buffer, stored.bytes.byteOffset, stored.bytes.byteLength);
  if (sha256Hex(bytes) !== stored.sha256) return undefined;
  if (stored.encoding !== 'utf8' && stored.encoding !== 'utf16le') return undefined;
  return bytes.toString(stored.encoding);
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Lines of a body: the number of `\n` plus one when the body does not end
 * with one; an empty body has 0 lines. `\r\n` counts once; a lone `\r` is not
 * a line break.
 */
export function countLines(body: string): number {
  if (body.length === 0) return 0;
  let lines = 0;
  let index = body.indexOf('\n');
  while (index !== -1) {
    lines += 1;
    index = body.indexOf('\n', index + 1);
  }
  return body.endsWith('\n') ? lines : lines + 1;
}

/**
 * The reference fields of a body other than its id. `chars` is the UTF-16
 * length; `bytes` the UTF-8 length as sent to a provider (a lone surrogate
 * counts as the 3 bytes of U+FFFD, which is what UTF-8 encoders put there).
 */
export function measureToolOutput(body: string): Omit<ToolOutputRef, 'id'> {
  return { chars: body.length, lines: countLines(body), bytes: Buffer.byteLength(body, 'utf8') };
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The newest id this process made: the next one in the same millisecond counts on from it. */
let newest = { ms: -1, random: 0n };
const RANDOM_BITS = 80n;

/**
 * A new reference id: `out_`, 10 base-32 characters of the creation time in
 * milliseconds, then 16 of randomness (80 bits). Ids sort by creation time
 * and are unique across processes and machines without coordination; within
 * one process they also sort in the order they were made (a second id in the
 * same millisecond adds one to the previous one's random part). They are not derived from the content, so two puts of
 * the same body get two references, each naming its own tool call.
 */
export function newToolOutputId(nowMs: number = Date.now()): string {
  const ms = Math.floor(nowMs);
  newest = ms === newest.ms ? { ms, random: (newest.random + 1n) % (1n << RANDOM_BITS) } : { ms, random: BigInt(`0x${randomBytes(10).toString('hex')}`) };
  return `out_${base32(BigInt(newest.ms), 10)}${base32(newest.random, 16)}`;
}

/** Makes the reference id of one put (default `newToolOutputId`, which ignores the output). */
export type ToolOutputIdMaker = (output: { readonly contextId: string; readonly toolCallId: string }) => string;

/**
 * An id in `newToolOutputId`'s shape that is a function of the context and
 * the tool call alone (SHA-256 of both): every process, worker and restart
 * gives a call's output the same reference, so runs of one session in
 * different processes send the same bytes, and a tool step run again after a
 * crash stores nothing twice (the put finds its own earlier body). Ids no
 * longer sort by time (a store lists outputs in creation order all the same),
 * and a context whose calls repeat an id with another body refuses the second put.
 */
export const derivedToolOutputId: ToolOutputIdMaker = (output) => {
  const digest = BigInt(`0x${createHash('sha256').update(`${output.contextId}\u0000${output.toolCallId}`).digest('hex').slice(0, 33)}`);
  return `out_${base32(digest, 26)}`;
};

/** Milliseconds of 2026-01-01T00:00:00Z: where the time part of a sequence's ids starts counting. */
const SEQUENCE_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * Ids in `newToolOutputId`'s shape, the same for the same seed: the nth id
 * has the time part of one second per id after a start derived from the seed,
 * and a random part from SHA-256 of the seed and n. For replays and tests
 * that must give the same references (and so the same token counts) on every
 * run and to every policy compared; never for a store that other seeds or
 * processes write to.
 */
export function toolOutputIdSequence(seed: string): () => string {
  if (typeof seed !== 'string') throw new StoreInputError({ code: 'STORE_INVALID_SEED', culprit: 'seed', message: `toolOutputIdSequence seed must be a string, got ${typeof seed}` });
  const start = SEQUENCE_EPOCH_MS + Number(BigInt(`0x${createHash('sha256').update(`start:${seed}`).digest('hex').slice(0, 12)}`) % 31_536_000_000n);
  let next = 0;
  return () => {
    const random = BigInt(`0x${createHash('sha256').update(`${seed}:${next}`).digest('hex').slice(0, 20)}`);
    const id = `out_${base32(BigInt(start + next * 1_000), 10)}${base32(random, 16)}`;
    next += 1;
    return id;
  };
}

/** `value` as `digits` Crockford base-32 digits, most significant first. */
function base32(value: bigint, digits: number): string {
  let text = '';
  for (let index = 0; index < digits; index += 1) {
    text = CROCKFORD[Number(value % 32n)]! + text;
    value /= 32n;
  }
  return text;
}

const ID_PATTERN = /^out_[0-9a-hjkmnp-tv-z]{26}$/;

/** True for a string shaped like an id `newToolOutputId` makes. */
export function isToolOutputId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/** Checks what `put` receives; a body may be any string, even empty, or an async iterable of strings (checked chunk by chunk as they arrive). */
export function validatePut(output: PutToolOutput | PutToolOutputStream): void {
  for (const field of ['contextId', 'toolCallId', 'toolName'] as const) {
    requireKey(output[field], { field, operation: 'put' });
  }
  if (typeof output.body !== 'string' && !isAsyncIterable(output.body)) {
    throw new StoreInputError({ code: 'STORE_FIELD_INVALID', culprit: 'body', message: `put: body must be a string or an async iterable of strings (tool call ${output.toolCallId})` });
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}
