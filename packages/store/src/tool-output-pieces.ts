import { createHash } from 'node:crypto';
import type { ToolOutputRef } from '@strata/context';
import { StoreInputError } from './errors/store-input-error.js';
import type { BodyEncoding } from './tool-output-body.js';
import { isWellFormedText } from './well-formed-text.js';

/**
 * Code units per stored piece: 256 Ki, so a piece is at most 768 KiB as
 * UTF-8 (or 512 KiB as UTF-16). Small enough that writing or reading a body
 * holds one piece at a time, large enough that a 50 MB body is ~200 rows.
 */
export const TOOL_OUTPUT_PIECE_CHARS = 262_144;

/** One bounded piece of a body, encoded on its own (see `BodyEncoding`). */
export interface EncodedPiece {
  /** The piece's code units; never splits a surrogate pair. */
  readonly text: string;
  readonly encoding: BodyEncoding;
  readonly bytes: Buffer;
}

/** What the whole body came to, known once its last piece is written. */
export interface BodyDigest {
  /** SHA-256 of every piece's bytes in order, lowercase hex (for a one-piece body, the same as `encodeBody`'s). */
  readonly sha256: string;
  readonly measure: Omit<ToolOutputRef, 'id'>;
}

/**
 * Hands a body (whole, or streamed chunk by chunk) to `write` as pieces of at
 * most `TOOL_OUTPUT_PIECE_CHARS` code units, hashing and measuring as it
 * goes, so only one piece is held at a time whatever the body's size. A
 * piece never ends between the halves of a surrogate pair, even one split
 * across two chunks; a piece holding a lone surrogate is kept as UTF-16 code
 * units, every other as UTF-8. An empty body has no pieces. `signal` is
 * checked before each chunk; a chunk that is not a string is `STORE_FIELD_INVALID`.
 */
export async function writePieces(options: {
  readonly body: string | AsyncIterable<string>;
  readonly write: (piece: EncodedPiece, index: number) => Promise<void> | void;
  readonly signal?: AbortSignal;
  readonly pieceChars?: number;
}): Promise<BodyDigest> {
  const { body, write, signal, pieceChars = TOOL_OUTPUT_PIECE_CHARS } = options;
  const hash = createHash('sha256');
  let chars = 0;
  let bytes = 0;
  let newlines = 0;
  let endsWithNewline = false;
  let index = 0;
  const emit = async (text: string): Promise<void> => {
    const encoded = encodePiece(text);
    hash.update(encoded.bytes);
    chars += text.length;
    bytes += Buffer.byteLength(text, 'utf8');
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) newlines += 1;
    endsWithNewline = text.endsWith('\n');
    await write({ text, encoding: encoded.encoding, bytes: encoded.bytes }, index);
    index += 1;
  };
  let pending = '';
  for await (const chunk of typeof body === 'string' ? [body] : body) {
    signal?.throwIfAborted();
    if (typeof chunk !== 'string') {
      throw new StoreInputError({ code: 'STORE_FIELD_INVALID', culprit: 'body', message: `put: every chunk of a streamed body must be a string, got ${typeof chunk}` });
    }
    pending += chunk;
    while (pending.length > pieceChars) {
      // Keep a pair together: a high surrogate at the cut moves to the next piece.
      const cut = pieceChars > 1 && isHighSurrogate(pending.charCodeAt(pieceChars - 1)) ? pieceChars - 1 : pieceChars;
      await emit(pending.slice(0, cut));
      pending = pending.slice(cut);
    }
  }
  signal?.throwIfAborted();
  if (pending.length > 0) await emit(pending);
  return {
    sha256: hash.digest('hex'),
    measure: { chars, lines: chars === 0 ? 0 : newlines + (endsWithNewline ? 0 : 1), bytes },
  };
}

/**
 * The body of stored pieces (in order), or undefined when their bytes no
 * longer hash to `sha256`: a damaged or missing piece is never a wrong body.
 */
export async function readPieces(pieces: AsyncIterable<{ readonly encoding: string; readonly bytes: Uint8Array }> | Iterable<{ readonly encoding: string; readonly bytes: Uint8Array }>, sha256: string): Promise<string | undefined> {
  const hash = createHash('sha256');
  const texts: string[] = [];
  for await (const piece of pieces) {
    if (piece.encoding !== 'utf8' && piece.encoding !== 'utf16le') return undefined;
    const bytes = Buffer.isBuffer(piece.bytes) ? piece.bytes : Buffer.from(piece.bytes.buffer, piece.bytes.byteOffset, piece.bytes.byteLength);
    hash.update(bytes);
    texts.push(bytes.toString(piece.encoding));
  }
  return hash.digest('hex') === sha256 ? texts.join('') : undefined;
}

/** A piece's bytes: UTF-8, or its UTF-16 code units when it holds a lone surrogate (which UTF-8 cannot carry). */
export function encodePiece(text: string): { readonly encoding: BodyEncoding; readonly bytes: Buffer } {
  const encoding: BodyEncoding = isWellFormedText(text) ? 'utf8' : 'utf16le';
  return { encoding, bytes: Buffer.from(text, encoding) };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
