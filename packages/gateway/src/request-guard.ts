// What the gateway checks before a request reaches its front ends: the client's token and the request's size.
import { timingSafeEqual, createHash } from 'node:crypto';
import { ConfigurationError } from '@strata/context';

/** The header a client may carry the gateway's token in (beside `Authorization: Bearer` and `x-api-key`). */
export const TOKEN_HEADER = 'x-strata-token';
/** The cookie `/strata/view?token=...` sets, so the viewer's own requests carry the token. */
export const VIEW_TOKEN_COOKIE = 'strata-gateway-token';

/** Default limits of one request: 32 MiB of body, 10,000 messages. */
export const REQUEST_LIMIT_DEFAULTS = Object.freeze({ maxBodyBytes: 32 * 1024 * 1024, maxMessages: 10_000 });

export interface RequestGuardOptions {
  /** The token clients present; unset: no token is asked (only allowed on a loopback address, see `startGateway`). */
  readonly token?: string;
  /** Default 32 MiB: a longer body is a 413. */
  readonly maxBodyBytes?: number;
  /** Default 10,000: a request with more `messages` (or `input` items) is a 400. */
  readonly maxMessages?: number;
}

/** A fetch handler, as Hono's `app.fetch`. */
export type GatewayHandler = (request: Request) => Response | Promise<Response>;

/**
 * Wraps a gateway's fetch handler. Every route but `/health` needs the token
 * when one is set: `Authorization: Bearer <token>`, `x-api-key: <token>` or
 * `x-strata-token: <token>` (`/strata/view` also takes `?token=`, then a
 * cookie); the header that carried it is removed, so it never goes upstream
 * (the upstream key is then `STRATA_UPSTREAM_API_KEY`, or the client's in
 * another of those headers). A POST body over `maxBodyBytes` is a 413 and
 * one with more than `maxMessages` messages a 400, each in the error shape
 * of the API the path belongs to.
 */
export function guardRequests(handler: GatewayHandler, options: RequestGuardOptions = {}): GatewayHandler {
  const settings = checkGuardOptions(options);
  const expected = settings.token === undefined ? undefined : digest(settings.token);
  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname === '/health') return handler(request);
    let headers = request.headers;
    let setCookie: string | undefined;
    if (expected !== undefined) {
      const found = presentedToken(request, url);
      if (found === undefined || !timingSafeEqual(digest(found.token), expected)) return errorResponse(url.pathname, 401, 'the gateway token is missing or wrong: send it as Authorization: Bearer <token>, x-api-key or x-strata-token');
      headers = new Headers(request.headers);
      if (found.header) headers.delete(found.header);
      if (found.header === undefined && url.searchParams.has('token')) setCookie = `${VIEW_TOKEN_COOKIE}=${encodeURIComponent(found.token)}; Path=/strata/view; HttpOnly; SameSite=Strict`;
    }
    let body: Uint8Array | undefined;
    if (request.method === 'POST') {
      const declared = Number(request.headers.get('content-length') ?? NaN);
      if (declared > settings.maxBodyBytes) return errorResponse(url.pathname, 413, `the request body is ${declared} bytes, over the gateway's limit of ${settings.maxBodyBytes}`);
      body = await readAtMost(request, settings.maxBodyBytes);
      if (body === undefined) return errorResponse(url.pathname, 413, `the request body is over the gateway's limit of ${settings.maxBodyBytes} bytes`);
      const count = messageCount(body);
      if (count > settings.maxMessages) return errorResponse(url.pathname, 400, `messages: ${count} messages, over the gateway's limit of ${settings.maxMessages}`);
    }
    // The same request, its body read once: what the front ends read is what was checked.
    const forwarded = headers === request.headers && body === undefined ? request : new Request(request.url, { method: request.method, headers, body, signal: request.signal });
    const response = await handler(forwarded);
    if (setCookie === undefined) return response;
    const answered = new Headers(response.headers);
    answered.append('set-cookie', setCookie);
    return new Response(response.body, { status: response.status, headers: answered });
  };
}

function checkGuardOptions(options: RequestGuardOptions): { token: string | undefined; maxBodyBytes: number; maxMessages: number } {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'gateway limits', message: 'guardRequests: options must be an object' });
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.trim().length < 16)) throw new ConfigurationError({ setting: 'token', message: 'the gateway token must be a string of at least 16 characters' });
  const settings = { ...REQUEST_LIMIT_DEFAULTS, ...Object.fromEntries(Object.entries({ maxBodyBytes: options.maxBodyBytes, maxMessages: options.maxMessages }).filter(([, value]) => value !== undefined)) };
  for (const name of ['maxBodyBytes', 'maxMessages'] as const) {
    if (!Number.isSafeInteger(settings[name]) || settings[name] < 1) throw new ConfigurationError({ setting: name, message: `the gateway's ${name} must be a positive integer, got ${JSON.stringify(settings[name])}` });
  }
  return { token: options.token?.trim(), maxBodyBytes: settings.maxBodyBytes, maxMessages: settings.maxMessages };
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The token the request presents, and the header that carried it (none for `/strata/view`'s query or cookie). */
function presentedToken(request: Request, url: URL): { token: string; header?: string } | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1]?.trim();
  const candidates: Array<{ token: string | undefined; header?: string }> = [
    { token: request.headers.get(TOKEN_HEADER)?.trim(), header: TOKEN_HEADER },
    { token: bearer, header: 'authorization' },
    { token: request.headers.get('x-api-key')?.trim(), header: 'x-api-key' },
  ];
  if (url.pathname === '/strata/view' || url.pathname.startsWith('/strata/view/')) {
    candidates.push({ token: url.searchParams.get('token') ?? undefined });
    const cookie = (request.headers.get('cookie') ?? '').split(';').map((part) => part.trim()).find((part) => part.startsWith(`${VIEW_TOKEN_COOKIE}=`));
    candidates.push({ token: cookie === undefined ? undefined : decodeURIComponent(cookie.slice(VIEW_TOKEN_COOKIE.length + 1)) });
  }
  // The dedicated header first: with it the client's own key may ride in Authorization or x-api-key.
  const found = candidates.find((candidate) => candidate.token);
  return found === undefined ? undefined : { token: found.token!, header: found.header };
}

/** The body's bytes, or undefined once they pass `limit` (the rest is not read). */
async function readAtMost(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The messages (or Responses `input` items) a JSON body carries; 0 for what is not such a body (the front end says what is wrong). */
function messageCount(bytes: Uint8Array): number {
  try {
    const body = JSON.parse(Buffer.from(bytes).toString('utf8')) as { messages?: unknown; input?: unknown } | null;
    const items = Array.isArray(body?.messages) ? body.messages : Array.isArray(body?.input) ? body.input : [];
    return items.length;
  } catch {
    return 0;
  }
}

/** An error in the shape of the API the path belongs to: Anthropic's for `/v1/messages`, OpenAI's elsewhere. */
export function errorResponse(path: string, status: 400 | 401 | 413 | 503, message: string): Response {
  if (path.startsWith('/v1/messages')) {
    const type = status === 401 ? 'authentication_error' : status === 413 ? 'request_too_large' : status === 503 ? 'overloaded_error' : 'invalid_request_error';
    return Response.json({ type: 'error', error: { type, message } }, { status });
  }
  const code = status === 401 ? 'invalid_api_key' : status === 413 ? 'request_too_large' : status === 503 ? 'unavailable' : null;
  return Response.json({ error: { message, type: status === 503 ? 'server_error' : 'invalid_request_error', param: status === 400 ? 'messages' : null, code } }, { status });
}
