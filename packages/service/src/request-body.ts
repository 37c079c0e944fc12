/** Default: at most 64 MiB of a refused body is read and thrown away before the answer; past that the connection is closed. */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1_048_576;

/** What reading a body within a limit found. */
export type LimitedBody =
  | { readonly kind: 'read'; readonly bytes: Uint8Array }
  /** Over the limit; `drained` when the rest was read to its end (within `discardBytes`), so the connection can stay open. */
  | { readonly kind: 'too-large'; readonly drained: boolean };

/**
 * Reads a request body of at most `maxBytes`. A body over the limit (by its
 * `Content-Length` or by what arrives) is read on and thrown away, up to
 * `discardBytes`, before the caller answers: a client still sending when the
 * server answers and closes sees a reset instead of the answer.
 */
export async function readLimitedBody(request: Request, options: { maxBytes: number; discardBytes: number }): Promise<LimitedBody> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) return { kind: 'too-large', drained: await discardBody(request.body, options.discardBytes) };
  const reader = request.body?.getReader();
  if (reader === undefined) return { kind: 'read', bytes: new Uint8Array(0) };
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > options.maxBytes) {
      chunks.length = 0;
      return { kind: 'too-large', drained: await discardRead(reader, options.discardBytes) };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: 'read', bytes };
}

/** Reads a body nobody wants to its end, up to `maxBytes`; true when the end came (or there was no body or it was already read). */
export async function discardBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<boolean> {
  if (body === null || body.locked) return true;
  return discardRead(body.getReader(), maxBytes);
}

async function discardRead(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<boolean> {
  let discarded = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      discarded += value.byteLength;
      if (discarded > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return false;
      }
    }
  } catch {
    // The client went away; there is nothing left to read.
    return false;
  }
}
