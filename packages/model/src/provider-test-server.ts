import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for a provider's HTTP API, for the wire-format tests.

/** One canned HTTP answer: a JSON error body, or SSE events. */
export interface CannedResponse {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  /** Each entry is one SSE event: `[eventName | undefined, data]`. */
  readonly events?: ReadonlyArray<readonly [string | undefined, unknown]>;
  /** Keep the stream open after the events (a stalled provider); the client must hang up. */
  readonly hold?: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** A provider stand-in on 127.0.0.1: answers the n-th request with the n-th canned response. */
export async function startProviderServer(responses: readonly CannedResponse[]) {
  const requests: RecordedRequest[] = [];
  /** Indexes of held requests whose connection the client closed. */
  const hungUp: number[] = [];
  let onHangUp: (() => void) | undefined;
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      requests.push({
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      const response = responses[requests.length - 1];
      if (response === undefined) {
        outgoing.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no canned response"}}');
        return;
      }
      if (response.events === undefined) {
        outgoing.writeHead(response.status, { 'content-type': 'application/json', ...response.headers }).end(JSON.stringify(response.json));
        return;
      }
      outgoing.writeHead(response.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...response.headers });
      for (const [event, data] of response.events) {
        outgoing.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      }
      const index = requests.length - 1;
      if (response.hold === true) {
        outgoing.on('close', () => {
          hungUp.push(index);
          onHangUp?.();
        });
      }
      else outgoing.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    hungUp,
    /** Resolves once the client has closed a held stream. */
    hangUp: () => new Promise<void>((resolve) => (hungUp.length > 0 ? resolve() : (onHangUp = resolve))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

