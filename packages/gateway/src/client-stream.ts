// The client's server-sent events across the upstream calls of one request, and the upstream's events as they arrive.
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';

/** One server-sent event as text: `event:` when named, then its data (JSON unless a string such as `[DONE]`). */
export function sseEvent(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/**
 * The stream one client request receives. A request whose answer the
 * gateway holds (a `read_tool_output` round) continues with the next
 * upstream answer's events in the same stream: `opened` says the answer's
 * opening went out (Anthropic's `message_start`, OpenAI's role delta and
 * chunk id), and `nextIndex` numbers the client's content blocks or tool
 * calls without the gaps the gateway's own calls leave.
 */
export class ClientStream {
  readonly body: ReadableStream<Uint8Array>;
  opened = false;
  nextIndex = 0;
  /** The Responses stream's next `sequence_number` (numbered across the request's upstream answers). */
  sequence = 0;
  /** The Responses output items the client was shown whole (`response.output_item.done`), in its numbering: the final response's output. */
  readonly items: unknown[] = [];
  /** What every chunk the client receives is named by (OpenAI's `id`, `created`, `model` of the first answer). */
  name: Record<string, unknown> | undefined;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly encoder = new TextEncoder();
  private ended = false;
  private made: Response | undefined;

  constructor() {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      // The client went away: what is left of the request still runs (its state is written), nothing more is sent.
      cancel: () => {
        this.ended = true;
      },
    });
  }

  /** Sends one event; nothing once the stream ended. */
  send(event: string | undefined, data: unknown): void {
    if (!this.ended) this.controller!.enqueue(this.encoder.encode(sseEvent(event, data)));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.controller!.close();
  }

  /** The client's response over this stream, made once (with the first call's headers): a body can back one response only. */
  response(headers: Record<string, string>): Response {
    this.made ??= new Response(this.body, { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
    return this.made;
  }
}

/** The upstream's server-sent events, each as it arrives (a library parser: events split across reads, comments, CRLF). */
export async function* upstreamEvents(response: Response): AsyncGenerator<EventSourceMessage> {
  if (response.body === null) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** An event's JSON data; undefined for data that is not a JSON object (`[DONE]`). */
export function eventData(message: EventSourceMessage): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(message.data) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
