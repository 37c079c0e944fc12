import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConservativeTokenEstimator, type TokenizerFamily, type ToolSchema } from '@strata/context';

// A model server on 127.0.0.1 that counts what it receives, for the usage-feedback and window acceptance tests:
// OpenAI chat completions (streamed or not) and Anthropic Messages (streamed), plus the window endpoints
// of vLLM / LM Studio (`GET /v1/models`), Ollama (`POST /api/show`) and Anthropic (`GET /v1/models/{id}`).

/** What the server answers a call with: a text, or one tool call. */
export type ChatReply = { readonly text: string } | { readonly toolCall: { readonly id: string; readonly name: string; readonly input: Record<string, unknown> } };

/** One chat request as the server counted it. */
export interface CountedRequest {
  /** The server's count of everything sent. */
  readonly sentTokens: number;
  /** What it read and reported: fewer than sent when it dropped messages past its window. */
  readonly keptTokens: number;
  readonly truncated: boolean;
  readonly messages: number;
}

export interface ChatTestServerOptions {
  /** The wire the chat endpoint speaks. */
  readonly wire: 'openai' | 'anthropic';
  /** The n-th chat call's answer (1-based), from what the server kept. */
  readonly reply: (call: number) => ChatReply;
  /**
   * The server's window by its own count. With `truncate`, a prompt past it
   * loses its oldest messages (the system prompt stays), and the newest
   * keeps only its tail, as servers that cut silently do; the reported
   * count is of what was kept. Default: no window.
   */
  readonly windowTokens?: number;
  readonly truncate?: boolean;
  /** The server's tokens per token of the conservative estimate of `family` (1.3: a tokenizer that counts 30% more). Default 1. */
  readonly countRatio?: number;
  /** The tokenizer family whose conservative estimate the server's count is a multiple of. Default `unknown`. */
  readonly family?: TokenizerFamily;
  /** `GET /v1/models` entries (vLLM: `{ id, max_model_len }`); absent: 404. */
  readonly models?: readonly Record<string, unknown>[];
  /** `POST /api/show` answer (Ollama); absent: 404. */
  readonly ollamaShow?: Record<string, unknown>;
  /** `GET /v1/models/{id}` answer (Anthropic's Models API); absent: 404. */
  readonly anthropicModel?: Record<string, unknown>;
}

interface WireMessage {
  readonly role: string;
  readonly text: string;
  /** The tool schemas, charged with the system prompt. */
  readonly tools: readonly ToolSchema[];
}

/** Starts the server; `baseURL` ends in `/v1`. */
export async function startChatTestServer(options: ChatTestServerOptions) {
  const estimator = new ConservativeTokenEstimator({ family: options.family ?? 'unknown' });
  const ratio = options.countRatio ?? 1;
  // Close to how Strata counts what it sent (text and framing per message, each tool schema), times the ratio.
  const count = (message: WireMessage): number =>
    Math.ceil(ratio * ((message.text === '' ? 0 : estimator.countMessage({ role: 'user', content: message.text })) + message.tools.reduce((total, tool) => total + estimator.countTool(tool), 0)));
  const requests: CountedRequest[] = [];
  const paths: string[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      paths.push(`${incoming.method} ${incoming.url}`);
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        answer(incoming, outgoing, text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
      } catch (error) {
        outgoing.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
      }
    });
  });

  function answer(incoming: IncomingMessage, outgoing: ServerResponse, body: Record<string, unknown>): void {
    const url = incoming.url ?? '';
    const json = (status: number, value: unknown): void => void outgoing.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (incoming.method === 'GET' && url === '/v1/models') return options.models ? json(200, { object: 'list', data: options.models }) : json(404, { error: 'not found' });
    if (incoming.method === 'GET' && url.startsWith('/v1/models/')) return options.anthropicModel ? json(200, options.anthropicModel) : json(404, { error: 'not found' });
    if (incoming.method === 'POST' && url === '/api/show') return options.ollamaShow ? json(200, options.ollamaShow) : json(404, { error: 'not found' });
    const chat = options.wire === 'openai' ? url === '/v1/chat/completions' : url === '/v1/messages';
    if (incoming.method !== 'POST' || !chat) return json(404, { error: 'not found' });
    const counted = countRequest(options.wire === 'openai' ? openAiMessages(body) : anthropicMessages(body));
    requests.push(counted);
    const reply = options.reply(requests.length);
    if (options.wire === 'openai') return openAiAnswer(outgoing, body.stream === true, reply, counted.keptTokens);
    return anthropicAnswer(outgoing, reply, counted.keptTokens);
  }

  function countRequest(messages: readonly WireMessage[]): CountedRequest {
    const counts = messages.map(count);
    const sentTokens = counts.reduce((total, tokens) => total + tokens, 0);
    const window = options.windowTokens;
    if (window === undefined || !options.truncate || sentTokens <= window) return { sentTokens, keptTokens: sentTokens, truncated: false, messages: messages.length };
    // The system prompt stays; the oldest of the rest go first; the newest keeps its tail.
    let kept = counts[0]! + counts.at(-1)!;
    for (let index = counts.length - 2; index >= 1 && kept + counts[index]! <= window; index -= 1) kept += counts[index]!;
    return { sentTokens, keptTokens: Math.min(kept, window), truncated: true, messages: messages.length };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    /** Each chat request, as counted. */
    requests,
    /** Every request's method and path, in order. */
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((part: Record<string, unknown>) => {
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'tool_use') return JSON.stringify(part.input ?? {});
      if (part.type === 'tool_result') return contentText(part.content);
      return '';
    })
    .join('\n');
}

/** The messages of a chat completions request, each with all of its text; the tool schemas as one more. */
function openAiMessages(body: Record<string, unknown>): WireMessage[] {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Array<Record<string, unknown>>;
  const system = messages.filter((message) => message.role === 'system').map((message) => contentText(message.content));
  const rest = messages.filter((message) => message.role !== 'system');
  const tools = ((Array.isArray(body.tools) ? body.tools : []) as Array<{ function: { name: string; description?: string; parameters?: Record<string, never> } }>).map(({ function: tool }) => ({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? {} }));
  return [
    { role: 'system', text: system.join('\n'), tools },
    ...rest.map((message) => ({ role: String(message.role), text: [contentText(message.content), ...((message.tool_calls ?? []) as Array<{ function: { arguments: string } }>).map((call) => call.function.arguments)].join('\n'), tools: [] })),
  ];
}

function anthropicMessages(body: Record<string, unknown>): WireMessage[] {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Array<Record<string, unknown>>;
  const tools = ((Array.isArray(body.tools) ? body.tools : []) as Array<{ name: string; description?: string; input_schema?: Record<string, never> }>).map((tool) => ({ name: tool.name, description: tool.description ?? '', parameters: tool.input_schema ?? {} }));
  return [{ role: 'system', text: contentText(body.system), tools }, ...messages.map((message) => ({ role: String(message.role), text: contentText(message.content), tools: [] }))];
}

function openAiAnswer(outgoing: ServerResponse, stream: boolean, reply: ChatReply, promptTokens: number): void {
  const usage = { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 };
  const toolCalls = 'toolCall' in reply ? [{ index: 0, id: reply.toolCall.id, type: 'function', function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.input) } }] : undefined;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  const base = { id: 'chatcmpl-test', created: 1_700_000_000, model: 'test' };
  if (!stream) {
    const message = { role: 'assistant', content: 'text' in reply ? reply.text : null, ...(toolCalls ? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) } : {}) };
    outgoing.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => outgoing.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  const chunk = (delta: unknown, finishReason: string | null) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  send(chunk(toolCalls ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: 'text' in reply ? reply.text : '' }, null));
  send(chunk({}, finish));
  send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  send('[DONE]');
  outgoing.end();
}

function anthropicAnswer(outgoing: ServerResponse, reply: ChatReply, inputTokens: number): void {
  outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) => outgoing.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
  send('message_start', { message: { id: 'msg_test', type: 'message', role: 'assistant', content: [], model: 'test', stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } } });
  if ('toolCall' in reply) {
    send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: reply.toolCall.id, name: reply.toolCall.name, input: {} } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.toolCall.input) } });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: 'toolCall' in reply ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  outgoing.end();
}
