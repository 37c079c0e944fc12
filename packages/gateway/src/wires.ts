// What differs between the OpenAI chat and Anthropic messages front ends: how a request reads, goes upstream and answers.
import { messageChain, withCacheMarker, withClientBlocks } from './anthropic-fidelity.js';
import { ClientStream, eventData, sseEvent } from './client-stream.js';
import type { EventSourceMessage } from 'eventsource-parser/stream';
import { fromAnthropicMessages, fromOpenAIChat, toAnthropicMessages, toOpenAIChat, type CanonicalMessage, type HostLoopUsage, type ImportedMessage, type JsonValue, type ToolSchema } from '@strata/context';

/** A wire message: the client's own object, passed upstream untouched while Strata leaves it unchanged. */
export interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly [field: string]: unknown;
}

/** One front end's wire format. */
export interface Wire {
  /** The API of the upstream requests this wire makes (and of the window resolver's and telemetry's `provider`). */
  readonly api: 'openai' | 'anthropic';
  /** The upstream path after the base URL. */
  readonly path: string;
  /** What precedes the messages and belongs to the conversation's opening (Anthropic's `system`). */
  opening(body: Record<string, unknown>): string;
  import(body: Record<string, unknown>, messages: readonly ChatMessage[]): ImportedMessage<ChatMessage | null>[];
  /** The upstream request without its tools: the client's fields, the assembled messages. */
  upstreamBody(body: Record<string, unknown>, messages: ReadonlyArray<{ readonly message: CanonicalMessage; readonly origin: ChatMessage | null | undefined }>): Record<string, unknown>;
  toolSchemas(tools: readonly unknown[]): ToolSchema[];
  toolName(tool: unknown): unknown;
  toolEntry(tool: ToolSchema): Record<string, unknown>;
  /** The upstream request's tools: the client's own (less any of the gateway's name) and `read`. */
  upstreamTools(clientTools: readonly unknown[], read: ToolSchema): unknown[];
  /** The client's fields that are not sent upstream, listed in DROPPED_FIELDS_HEADER. Absent: none. */
  dropped?(body: Record<string, unknown>): string[];
  /** The upstream's answer in the client's API, read before anything else reads it (its calls, rounds, stream). Absent: already the client's. */
  answer?(completion: Record<string, unknown>): Record<string, unknown>;
  /** An upstream error answer (status and body) as the client's. Absent: relayed as it came. */
  upstreamError?(status: number, text: string): Response;
  headers(incoming: Headers, apiKey: string | undefined): Record<string, string>;
  /** The usage of an upstream answer as it came (before `answer`). */
  usage(completion: Record<string, unknown>): HostLoopUsage;
  /** The gateway's own calls in the answer, and how many calls it has in all. */
  calls(completion: Record<string, unknown>, readName: string): { reads: Array<{ id: string; input: JsonValue }>; total: number };
  /** The messages a read round adds to the history: the model's answer and the gateway's results. */
  round(completion: Record<string, unknown>, answers: ReadonlyArray<{ id: string; content: string }>): ChatMessage[];
  withoutReads(completion: Record<string, unknown>, readName: string): Record<string, unknown>;
  /** The answer with the gateway's own calls only (no text, no client calls): the round kept before the client's calls when an answer has both. Absent: such reads are left out unanswered. */
  readsOnly?(completion: Record<string, unknown>, readName: string): Record<string, unknown>;
  /** The upstream request with prompt-cache markers placed, given the previous request's `chain` in this context; and this one's. Absent: none placed. */
  markCache?(upstreamBody: Record<string, unknown>, previous: readonly string[] | undefined): { body: Record<string, unknown>; chain: readonly string[] };
  /** A finished answer replayed as the client's stream (the wire's upstream is called unstreamed when it has no `forward`). */
  stream(completion: Record<string, unknown>, headers: Record<string, string>): Response;
  /** The fields a streamed upstream call adds to the body (`stream: true`, and OpenAI's usage chunk). */
  streamFields?(body: Record<string, unknown>): Record<string, unknown>;
  /**
   * Forwards an upstream answer's events to the client as they arrive, but
   * the gateway's own calls and the answer's end (stop reason, usage), and
   * returns the whole answer as the unstreamed API would have given it.
   */
  forward?(events: AsyncIterable<EventSourceMessage>, readName: string, client: ClientStream): Promise<Record<string, unknown>>;
  /** Ends the client's stream with the answer's end as `shown` has it (stop reason, usage, the `strata` field). */
  finish?(shown: Record<string, unknown>, client: ClientStream): void;
  /** An error in the API's shape: a 4xx is the request's (`invalid_request_error`), a 5xx the gateway's or upstream's; `code` as OpenAI names it (e.g. `context_length_exceeded`). */
  error(status: number, message: string, code?: string): Response;
}

/** The upstream tools of a wire that forwards in its client's own API: the client's entries as they came (less any of the gateway's name), then `read`. */
export function sameApiTools(wire: Pick<Wire, 'toolName' | 'toolEntry'>, clientTools: readonly unknown[], read: ToolSchema): unknown[] {
  return [...clientTools.filter((tool) => wire.toolName(tool) !== read.name), wire.toolEntry(read)];
}

/** The upstream's response as it came: status, body and content type. */
export async function relay(response: Response): Promise<Response> {
  const contentType = response.headers.get('content-type');
  return new Response(await response.arrayBuffer(), { status: response.status, headers: contentType ? { 'content-type': contentType } : {} });
}

function forward(incoming: Headers, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = incoming.get(name);
    if (value) headers[name] = value;
  }
  return headers;
}

function parseArguments(text: unknown): JsonValue {
  try {
    return JSON.parse(typeof text === 'string' ? text : '{}') as JsonValue;
  } catch {
    return {};
  }
}

function schemaOf(name: unknown, description: unknown, parameters: unknown): ToolSchema[] {
  if (typeof name !== 'string') return [];
  return [{ name, description: typeof description === 'string' ? description : undefined, parameters: (typeof parameters === 'object' && parameters !== null ? parameters : {}) as Record<string, unknown> }];
}

function sseText(events: ReadonlyArray<readonly [string | undefined, unknown]>): string {
  return events.map(([event, data]) => sseEvent(event, data)).join('');
}

/** Where the client sees an upstream answer's calls or blocks: each upstream index given the client's next, the gateway's own none. */
class IndexMap {
  private readonly indexes = new Map<number, number | null>();
  constructor(private readonly client: ClientStream) {}
  /** Decided at the first sight of the index: own (held) or the client's next. */
  open(index: number, own: boolean): void {
    if (!this.indexes.has(index)) this.indexes.set(index, own ? null : this.client.nextIndex++);
  }
  /** The client's index; null for the gateway's own; undefined for an index never opened. */
  of(index: number): number | null | undefined {
    return this.indexes.get(index);
  }
}

type OpenAICall = { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
const openAIChoice = (completion: Record<string, unknown>) => (completion.choices as Array<{ index?: number; message?: ChatMessage; finish_reason?: unknown }> | undefined)?.[0];
const openAICalls = (message: ChatMessage | undefined): OpenAICall[] => (Array.isArray(message?.tool_calls) ? (message.tool_calls as OpenAICall[]) : []);

/** `POST /v1/chat/completions`. */
export const OPENAI_WIRE: Wire = {
  api: 'openai',
  path: '/chat/completions',
  opening: () => '',
  import(_body, messages) {
    const canonical = fromOpenAIChat(messages, { path: 'messages' });
    // The reader maps one message to one canonical message, except parts it splits; then every message is converted anew.
    if (canonical.length !== messages.length) return canonical.map((message) => ({ message, origin: null }));
    return canonical.map((message, index) => ({ message, origin: messages[index]! }));
  },
  upstreamBody(body, messages) {
    const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
    return { ...rest, messages: messages.flatMap(({ message, origin }) => (origin ? [origin] : (toOpenAIChat([message]) as unknown as ChatMessage[]))) };
  },
  toolSchemas: (tools) => tools.flatMap((tool) => {
    const fn = (tool as { function?: { name?: unknown; description?: unknown; parameters?: unknown } } | null)?.function;
    return schemaOf(fn?.name, fn?.description, fn?.parameters);
  }),
  toolName: (tool) => (tool as { function?: { name?: unknown } } | null)?.function?.name,
  toolEntry: (tool) => ({ type: 'function', function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters } }),
  upstreamTools(clientTools, read) {
    return sameApiTools(this, clientTools, read);
  },
  headers(incoming, apiKey) {
    const headers = forward(incoming, ['authorization', 'openai-organization', 'openai-project']);
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return headers;
  },
  usage(completion) {
    const usage = completion.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
    return { inputTokens: usage?.prompt_tokens, outputTokens: usage?.completion_tokens };
  },
  calls(completion, readName) {
    const calls = openAICalls(openAIChoice(completion)?.message);
    const reads = calls.filter((call) => call.function?.name === readName).map((call) => ({ id: typeof call.id === 'string' ? call.id : '', input: parseArguments(call.function?.arguments) }));
    return { reads, total: calls.length };
  },
  round: (completion, answers) => [openAIChoice(completion)!.message!, ...answers.map(({ id, content }) => ({ role: 'tool', tool_call_id: id, content }))],
  withoutReads(completion, readName) {
    const [first, ...others] = (completion.choices as Array<{ message?: ChatMessage; finish_reason?: unknown }>) ?? [];
    if (!first?.message) return completion;
    const calls = openAICalls(first.message).filter((call) => call.function?.name !== readName);
    const { tool_calls: _calls, ...message } = first.message;
    const choice = { ...first, message: calls.length > 0 ? { ...message, tool_calls: calls } : message, finish_reason: calls.length > 0 ? first.finish_reason : 'stop' };
    return { ...completion, choices: [choice, ...others] };
  },
  readsOnly(completion, readName) {
    const [first, ...others] = (completion.choices as Array<{ message?: ChatMessage; finish_reason?: unknown }>) ?? [];
    if (!first?.message) return completion;
    const reads = openAICalls(first.message).filter((call) => call.function?.name === readName);
    return { ...completion, choices: [{ ...first, message: { role: 'assistant', content: null, tool_calls: reads }, finish_reason: 'tool_calls' }, ...others] };
  },
  streamFields: (body) => ({ stream: true, stream_options: { ...(typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {}), include_usage: true } }),
  async forward(events, readName, client) {
    const calls = new IndexMap(client);
    const completion: Record<string, unknown> = { object: 'chat.completion' };
    const message: { role: string; content: string | null; tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>; [field: string]: unknown } = { role: 'assistant', content: null };
    let finishReason: unknown = null;
    for await (const event of events) {
      const chunk = eventData(event);
      if (chunk === undefined) continue;
      completion.id ??= chunk.id;
      completion.created ??= chunk.created;
      completion.model ??= chunk.model;
      if (chunk.system_fingerprint !== undefined) completion.system_fingerprint = chunk.system_fingerprint;
      if (chunk.usage) completion.usage = chunk.usage;
      client.name ??= { id: chunk.id, created: chunk.created, model: chunk.model };
      const shown: unknown[] = [];
      for (const choice of (chunk.choices as Array<{ index?: number; delta?: Record<string, unknown>; finish_reason?: unknown; [field: string]: unknown }> | undefined) ?? []) {
        // One choice is answered (the gateway's loop reads the first); others are not forwarded.
        if ((choice.index ?? 0) !== 0) continue;
        if (choice.finish_reason) finishReason = choice.finish_reason;
        const { tool_calls: toolCalls, role: _role, ...delta } = choice.delta ?? {};
        if (typeof delta.content === 'string') message.content = (message.content ?? '') + delta.content;
        if (typeof delta.refusal === 'string') message.refusal = `${typeof message.refusal === 'string' ? message.refusal : ''}${delta.refusal}`;
        const forwarded: unknown[] = [];
        for (const call of (toolCalls as Array<{ index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }> | undefined) ?? []) {
          const index = call.index ?? 0;
          message.tool_calls ??= [];
          const whole = (message.tool_calls[index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
          whole.id += call.id ?? '';
          whole.function.name += call.function?.name ?? '';
          whole.function.arguments += call.function?.arguments ?? '';
          calls.open(index, whole.function.name === readName);
          const shownIndex = calls.of(index);
          if (shownIndex !== null && shownIndex !== undefined) forwarded.push({ ...call, index: shownIndex });
        }
        const opening = client.opened ? {} : { role: 'assistant' };
        const out = { ...opening, ...delta, ...(forwarded.length > 0 ? { tool_calls: forwarded } : {}) };
        if (Object.keys(out).length > 0) shown.push({ ...choice, index: 0, delta: out, finish_reason: null });
      }
      if (shown.length > 0) {
        client.opened = true;
        client.send(undefined, { ...chunk, ...client.name, object: 'chat.completion.chunk', choices: shown, usage: undefined });
      }
    }
    if (message.tool_calls) message.tool_calls = message.tool_calls.filter((call) => call !== undefined);
    // As the unstreamed API gives a message of calls alone (and Strata converts one): no text is null, not "".
    if (message.content === '' && message.tool_calls) message.content = null;
    return { ...completion, choices: [{ index: 0, message, finish_reason: finishReason ?? 'stop' }] };
  },
  finish(shown, client) {
    const choice = openAIChoice(shown);
    const name = client.name ?? { id: shown.id, created: shown.created, model: shown.model };
    client.send(undefined, { ...name, object: 'chat.completion.chunk', choices: [{ index: 0, delta: client.opened ? {} : { role: 'assistant' }, finish_reason: choice?.finish_reason ?? 'stop' }] });
    client.send(undefined, { ...name, object: 'chat.completion.chunk', choices: [], usage: shown.usage ?? null, strata: shown.strata });
    client.send(undefined, '[DONE]');
  },
  /** The finished completion as the chat stream's chunks: the message in one delta, then the finish reason, then usage and `[DONE]`. */
  stream(completion, headers) {
    const choices = (completion.choices as Array<{ index?: number; message?: ChatMessage; finish_reason?: unknown }> | undefined) ?? [];
    const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model };
    const events: Array<[undefined, unknown]> = [];
    for (const choice of choices) {
      const message = choice.message ?? {};
      const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<Record<string, unknown>>).map((call, index) => ({ index, ...call })) : undefined;
      const delta = { role: 'assistant', content: message.content ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
      events.push([undefined, { ...base, choices: [{ index: choice.index ?? 0, delta, finish_reason: null }] }]);
      events.push([undefined, { ...base, choices: [{ index: choice.index ?? 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] }]);
    }
    events.push([undefined, { ...base, choices: [], usage: completion.usage ?? null, strata: completion.strata }], [undefined, '[DONE]']);
    return new Response(sseText(events), { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  },
  error: (status, message, code) => Response.json({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: code ?? null } }, { status }),
};

type AnthropicBlock = { type?: unknown; id?: unknown; name?: unknown; input?: unknown; text?: unknown; thinking?: unknown; signature?: unknown; data?: unknown };
const anthropicBlocks = (completion: Record<string, unknown>): AnthropicBlock[] => (Array.isArray(completion.content) ? (completion.content as AnthropicBlock[]) : []);

/** `POST /v1/messages`: every message converted through the canonical history (its blocks are split and joined there). */
export const ANTHROPIC_WIRE: Wire = {
  api: 'anthropic',
  path: '/messages',
  opening: (body) => JSON.stringify(body.system ?? null),
  import: (body, messages) => fromAnthropicMessages({ system: body.system, messages }).map((message) => ({ message, origin: null })),
  upstreamBody(body, messages) {
    const { stream: _stream, ...rest } = body;
    const { system, messages: converted } = withClientBlocks(body, toAnthropicMessages(messages.map(({ message }) => message)) as { system?: unknown; messages: ChatMessage[] });
    const { system: _system, ...fields } = rest;
    return { ...fields, ...(system === undefined ? {} : { system }), messages: converted };
  },
  markCache(upstreamBody, previous) {
    const marked = withCacheMarker(upstreamBody as { messages: ChatMessage[] }, previous);
    return { body: { ...upstreamBody, ...marked }, chain: messageChain(marked.messages) };
  },
  toolSchemas: (tools) => tools.flatMap((tool) => {
    const entry = tool as { name?: unknown; description?: unknown; input_schema?: unknown } | null;
    return schemaOf(entry?.name, entry?.description, entry?.input_schema);
  }),
  toolName: (tool) => (tool as { name?: unknown } | null)?.name,
  toolEntry: (tool) => ({ name: tool.name, description: tool.description ?? '', input_schema: tool.parameters }),
  upstreamTools(clientTools, read) {
    return sameApiTools(this, clientTools, read);
  },
  headers(incoming, apiKey) {
    const headers = forward(incoming, ['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta']);
    if (apiKey) headers['x-api-key'] = apiKey;
    return headers;
  },
  usage(completion) {
    const usage = completion.usage as { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown } | undefined;
    return { inputTokens: usage?.input_tokens, outputTokens: usage?.output_tokens, cachedInputTokens: usage?.cache_read_input_tokens, cacheWriteInputTokens: usage?.cache_creation_input_tokens };
  },
  calls(completion, readName) {
    const uses = anthropicBlocks(completion).filter((block) => block.type === 'tool_use');
    const reads = uses.filter((block) => block.name === readName).map((block) => ({ id: typeof block.id === 'string' ? block.id : '', input: (block.input ?? {}) as JsonValue }));
    return { reads, total: uses.length };
  },
  round: (completion, answers) => [
    { role: 'assistant', content: completion.content },
    { role: 'user', content: answers.map(({ id, content }) => ({ type: 'tool_result', tool_use_id: id, content })) },
  ],
  withoutReads(completion, readName) {
    const content = anthropicBlocks(completion).filter((block) => !(block.type === 'tool_use' && block.name === readName));
    return { ...completion, content, stop_reason: content.some((block) => block.type === 'tool_use') ? completion.stop_reason : 'end_turn' };
  },
  readsOnly(completion, readName) {
    const content = anthropicBlocks(completion).filter((block) => block.type === 'tool_use' && block.name === readName);
    return { ...completion, content, stop_reason: 'tool_use' };
  },
  streamFields: () => ({ stream: true }),
  async forward(events, readName, client) {
    const blocks = new IndexMap(client);
    let message: Record<string, unknown> = {};
    const content: Array<Record<string, unknown>> = [];
    const partialJson = new Map<number, string>();
    for await (const event of events) {
      const data = eventData(event);
      if (data === undefined) continue;
      const index = typeof data.index === 'number' ? data.index : -1;
      switch (data.type) {
        case 'message_start':
          message = { ...(data.message as Record<string, unknown>) };
          // A later upstream answer of the same request continues the client's message.
          if (!client.opened) client.send('message_start', data);
          client.opened = true;
          break;
        case 'content_block_start': {
          const block = { ...(data.content_block as Record<string, unknown>) };
          content[index] = block;
          blocks.open(index, block.type === 'tool_use' && block.name === readName);
          break;
        }
        case 'content_block_delta': {
          const block = content[index];
          const delta = (data.delta ?? {}) as Record<string, unknown>;
          if (block === undefined) break;
          if (delta.type === 'text_delta') block.text = `${block.text ?? ''}${delta.text ?? ''}`;
          else if (delta.type === 'input_json_delta') partialJson.set(index, `${partialJson.get(index) ?? ''}${delta.partial_json ?? ''}`);
          else if (delta.type === 'thinking_delta') block.thinking = `${block.thinking ?? ''}${delta.thinking ?? ''}`;
          else if (delta.type === 'signature_delta') block.signature = `${block.signature ?? ''}${delta.signature ?? ''}`;
          else if (delta.type === 'citations_delta') block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
          break;
        }
        case 'content_block_stop':
          if (partialJson.has(index) && content[index]) {
            try {
              content[index]!.input = JSON.parse(partialJson.get(index) || '{}');
            } catch {
              content[index]!.input = {};
            }
          }
          break;
        case 'message_delta': {
          const delta = (data.delta ?? {}) as Record<string, unknown>;
          message = { ...message, ...delta, usage: { ...((message.usage as object) ?? {}), ...((data.usage as object) ?? {}) } };
          continue;
        }
        case 'message_stop':
          continue;
        default:
          // ping and events this reader does not know pass through as they are.
          client.send(event.event, data);
          continue;
      }
      if (data.type === 'message_start') continue;
      const shown = blocks.of(index);
      if (shown !== null && shown !== undefined) client.send(event.event ?? String(data.type), { ...data, index: shown });
    }
    return { ...message, content: content.filter((block) => block !== undefined) };
  },
  finish(shown, client) {
    const usage = (shown.usage ?? {}) as Record<string, unknown>;
    if (!client.opened) client.send('message_start', { type: 'message_start', message: { ...shown, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } });
    client.send('message_delta', { type: 'message_delta', delta: { stop_reason: shown.stop_reason ?? 'end_turn', stop_sequence: shown.stop_sequence ?? null }, usage, strata: shown.strata });
    client.send('message_stop', { type: 'message_stop' });
  },
  /** The finished message as the messages stream's events: each block started, given in one delta, stopped; then the stop reason. */
  stream(completion, headers) {
    const usage = (completion.usage ?? {}) as Record<string, unknown>;
    const events: Array<[string, unknown]> = [['message_start', { type: 'message_start', message: { ...completion, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } }]];
    anthropicBlocks(completion).forEach((block, index) => {
      if (block.type === 'text') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }]);
      } else if (block.type === 'tool_use') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }]);
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) } }]);
      } else if (block.type === 'thinking') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }]);
        events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }]);
      } else {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: block }]);
      }
      events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    });
    events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: completion.stop_reason ?? 'end_turn', stop_sequence: completion.stop_sequence ?? null }, usage: { output_tokens: usage.output_tokens ?? 0 }, strata: completion.strata }]);
    events.push(['message_stop', { type: 'message_stop' }]);
    return new Response(sseText(events), { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  },
  error: (status, message) => Response.json({ type: 'error', error: { type: status >= 500 ? 'api_error' : 'invalid_request_error', message } }, { status }),
};
