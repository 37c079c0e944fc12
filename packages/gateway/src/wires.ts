// What differs between the OpenAI chat and Anthropic messages front ends: how a request reads, goes upstream and answers.
import { fromAnthropicMessages, fromOpenAIChat, toAnthropicMessages, toOpenAIChat, type CanonicalMessage, type HostLoopUsage, type ImportedMessage, type JsonValue, type ToolDefinition, type ToolSchema } from '@strata/context';

/** A wire message: the client's own object, passed upstream untouched while Strata leaves it unchanged. */
export interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly [field: string]: unknown;
}

/** One front end's wire format. */
export interface Wire {
  /** The upstream path after the base URL. */
  readonly path: string;
  /** What precedes the messages and belongs to the conversation's opening (Anthropic's `system`). */
  opening(body: Record<string, unknown>): string;
  import(body: Record<string, unknown>, messages: readonly ChatMessage[]): ImportedMessage<ChatMessage | null>[];
  /** The upstream request without its tools: the client's fields, the assembled messages. */
  upstreamBody(body: Record<string, unknown>, messages: ReadonlyArray<{ readonly message: CanonicalMessage; readonly origin: ChatMessage | null | undefined }>): Record<string, unknown>;
  toolSchemas(tools: readonly unknown[]): ToolSchema[];
  toolName(tool: unknown): unknown;
  toolEntry(tool: ToolDefinition): Record<string, unknown>;
  headers(incoming: Headers, apiKey: string | undefined): Record<string, string>;
  usage(completion: Record<string, unknown>): HostLoopUsage;
  /** The gateway's own calls in the answer, and how many calls it has in all. */
  calls(completion: Record<string, unknown>, readName: string): { reads: Array<{ id: string; input: JsonValue }>; total: number };
  /** The messages a read round adds to the history: the model's answer and the gateway's results. */
  round(completion: Record<string, unknown>, answers: ReadonlyArray<{ id: string; content: string }>): ChatMessage[];
  withoutReads(completion: Record<string, unknown>, readName: string): Record<string, unknown>;
  stream(completion: Record<string, unknown>, headers: Record<string, string>): Response;
  error(status: number, message: string): Response;
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
  return events.map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
}

type OpenAICall = { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
const openAIChoice = (completion: Record<string, unknown>) => (completion.choices as Array<{ index?: number; message?: ChatMessage; finish_reason?: unknown }> | undefined)?.[0];
const openAICalls = (message: ChatMessage | undefined): OpenAICall[] => (Array.isArray(message?.tool_calls) ? (message.tool_calls as OpenAICall[]) : []);

/** `POST /v1/chat/completions`. */
export const OPENAI_WIRE: Wire = {
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
  error: (status, message) => Response.json({ error: { message, type: 'invalid_request_error', param: null, code: null } }, { status }),
};

type AnthropicBlock = { type?: unknown; id?: unknown; name?: unknown; input?: unknown; text?: unknown; thinking?: unknown; signature?: unknown; data?: unknown };
const anthropicBlocks = (completion: Record<string, unknown>): AnthropicBlock[] => (Array.isArray(completion.content) ? (completion.content as AnthropicBlock[]) : []);

/** `POST /v1/messages`: every message converted through the canonical history (its blocks are split and joined there). */
export const ANTHROPIC_WIRE: Wire = {
  path: '/messages',
  opening: (body) => JSON.stringify(body.system ?? null),
  import: (body, messages) => fromAnthropicMessages({ system: body.system, messages }).map((message) => ({ message, origin: null })),
  upstreamBody(body, messages) {
    const { stream: _stream, ...rest } = body;
    const { system, messages: converted } = toAnthropicMessages(messages.map(({ message }) => message));
    const { system: _system, ...fields } = rest;
    return { ...fields, ...(system === undefined ? {} : { system }), messages: converted };
  },
  toolSchemas: (tools) => tools.flatMap((tool) => {
    const entry = tool as { name?: unknown; description?: unknown; input_schema?: unknown } | null;
    return schemaOf(entry?.name, entry?.description, entry?.input_schema);
  }),
  toolName: (tool) => (tool as { name?: unknown } | null)?.name,
  toolEntry: (tool) => ({ name: tool.name, description: tool.description ?? '', input_schema: tool.parameters }),
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
  error: (status, message) => Response.json({ type: 'error', error: { type: 'invalid_request_error', message } }, { status }),
};
