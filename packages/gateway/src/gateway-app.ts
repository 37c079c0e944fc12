// The gateway's HTTP front ends: an OpenAI-compatible chat endpoint whose every upstream request Strata assembles.
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { BoundedCache, ConfigurationError, createHostLoopContext, fromOpenAIChat, toOpenAIChat, type CanonicalMessage, type HostLoopContext, type ImportedMessage, type JsonValue, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
import { createReadToolOutputTool, hostToolResultStore } from '@strata/tools';

/** The header a client names its conversation with; without it the conversation is keyed by its opening (system + first user message). */
export const SESSION_HEADER = 'x-strata-session';
/** The response header naming the context the gateway continued. */
export const CONTEXT_HEADER = 'x-strata-context';
/** The response header with the upstream calls the gateway made for this request (more than 1 when it answered `read_tool_output` itself). */
export const UPSTREAM_CALLS_HEADER = 'x-strata-upstream-calls';
/** Rounds of `read_tool_output` the gateway answers in one client request before it returns what the model said last. */
export const MAX_READ_ROUNDS = 32;
/** Read rounds remembered for the histories that continue them (the newest first). */
const ROUNDS_KEPT = 4_096;

export interface GatewayOptions {
  /** The upstream's base URL, e.g. `https://api.openai.com/v1` (the gateway appends `/chat/completions`, `/models`). */
  readonly upstream: string;
  /** Input tokens of every upstream request at most (the window less nothing: the output reserve is the client's `max_tokens`). */
  readonly windowTokens: number;
  readonly sessionStore: SessionStore;
  readonly outputStore: ToolOutputStore;
  /** Sent upstream instead of the client's own key. Default: the client's `Authorization` header, forwarded. */
  readonly upstreamApiKey?: string;
  /** How upstream calls are made. Default: the global fetch (undici). */
  readonly fetch?: typeof fetch;
}

interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly tool_calls?: unknown;
  readonly [field: string]: unknown;
}

/**
 * An OpenAI-compatible gateway (`POST /v1/chat/completions`, streamed and
 * not; `GET /v1/models` passed through; `GET /health`). Each conversation is
 * one Strata context (the `x-strata-session` header, else its opening),
 * kept in `sessionStore`; the upstream request is the window Strata
 * assembles within `windowTokens`, with `read_tool_output` added to the
 * tools. When the model calls `read_tool_output` the gateway answers it and
 * calls the model again, so the client sees only its own tools' calls and
 * the final answer. Fields of the request the gateway does not read go
 * upstream untouched; upstream errors come back with their status and body.
 */
export function createGatewayApp(options: GatewayOptions): Hono {
  const settings = checkOptions(options);
  const fetchUpstream = options.fetch ?? fetch;
  const readTool = createReadToolOutputTool({ store: options.outputStore });
  const readSchema = { type: 'function', function: { name: readTool.name, description: readTool.description ?? '', parameters: readTool.parameters } };
  const storeClientResult = hostToolResultStore(options.outputStore);
  const context: HostLoopContext<ChatMessage | null> = createHostLoopContext<ChatMessage | null>({
    budget: { inputCapTokens: settings.windowTokens },
    sessionStore: options.sessionStore,
    outputStore: options.outputStore,
    // The gateway's own read answers are copies of stored outputs: kept as they are, never stored again.
    storeResult: async (request) => (request.result.toolName === readTool.name ? request.result : storeClientResult(request)),
  });
  // The read rounds answered so far, by the chain hash of the client messages before each: spliced back into a client's next
  // history that starts with those messages, so it still continues its context. Held in this process only (README, "left to do").
  const rounds = new BoundedCache<string, readonly ChatMessage[]>(ROUNDS_KEPT);

  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  app.get('/v1/models', async (c) => relay(await fetchUpstream(`${settings.upstream}/models`, { headers: upstreamHeaders(c.req.raw.headers, options.upstreamApiKey) })));
  app.post('/v1/chat/completions', async (c) => {
    const body = await readJsonObject(c.req.raw);
    if (typeof body === 'string') return openAIError(400, body);
    if (!Array.isArray(body.messages) || body.messages.some((message) => typeof message !== 'object' || message === null)) return openAIError(400, 'messages: an array of message objects is required');
    const clientMessages = body.messages as ChatMessage[];
    const clientTools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    const tools = [...toolSchemas(clientTools).filter((tool) => tool.name !== readTool.name), { name: readTool.name, description: readTool.description, parameters: readTool.parameters }];
    const sessionId = c.req.header(SESSION_HEADER) || undefined;
    const headers = upstreamHeaders(c.req.raw.headers, options.upstreamApiKey);
    const stream = body.stream === true;

    const prefixes = prefixHashes(clientMessages);
    const history = withRounds(clientMessages, prefixes, rounds);
    let added: ChatMessage[] = [];
    let calls = 0;
    for (;;) {
      let imported: ImportedMessage<ChatMessage | null>[];
      try {
        imported = importChat([...history, ...added]);
      } catch (error) {
        return openAIError(400, error instanceof Error ? error.message : String(error));
      }
      const turn = await context.prepare({ contextId: sessionId, scope: 'gateway', messages: imported, tools });
      const messages = turn.messages.flatMap(({ message, origin }) => (origin ? [origin] : (toOpenAIChat([message]) as unknown as ChatMessage[])));
      const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
      const upstreamBody = { ...rest, messages, tools: [...clientTools.filter((tool) => toolName(tool) !== readTool.name), readSchema] };
      calls += 1;
      const response = await fetchUpstream(`${settings.upstream}/chat/completions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(upstreamBody) });
      if (!response.ok) {
        await context.recordUsage(turn, { error: response.status });
        return relay(response);
      }
      const completion = (await response.json()) as Record<string, unknown>;
      const usage = completion.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
      await context.recordUsage(turn, { usage: { inputTokens: usage?.prompt_tokens, outputTokens: usage?.completion_tokens } });
      const choice = (completion.choices as Array<{ message?: ChatMessage }> | undefined)?.[0];
      const message = choice?.message;
      const toolCalls = Array.isArray(message?.tool_calls) ? (message.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>) : [];
      const reads = toolCalls.filter((call) => call.function?.name === readTool.name);
      if (reads.length === 0 || reads.length < toolCalls.length || calls > MAX_READ_ROUNDS) {
        if (added.length > 0) rounds.set(prefixes.at(-1)!, added);
        // The client never sees a `read_tool_output` call: beside its own calls, or past MAX_READ_ROUNDS, they are left out.
        const shown = reads.length === 0 ? completion : withoutReads(completion, readTool.name);
        const extended = { ...shown, strata: { contextId: turn.contextId, upstreamCalls: calls, readToolOutputCalls: added.filter((m) => m.role === 'tool').length } };
        const responseHeaders = { [CONTEXT_HEADER]: turn.contextId, [UPSTREAM_CALLS_HEADER]: String(calls) };
        return stream ? sse(extended, responseHeaders) : Response.json(extended, { headers: responseHeaders });
      }
      // Every call is the gateway's own: answer them and call the model again.
      added = [...added, message as ChatMessage];
      for (const call of reads) {
        const id = typeof call.id === 'string' ? call.id : '';
        let input: JsonValue;
        try {
          input = JSON.parse(typeof call.function?.arguments === 'string' ? call.function.arguments : '{}') as JsonValue;
        } catch {
          input = {};
        }
        const outcome = await readTool.execute(input, { contextId: turn.contextId, toolCallId: id, signal: c.req.raw.signal });
        added.push({ role: 'tool', tool_call_id: id, content: outcome.content });
      }
    }
  });
  return app;
}

/** The completion with the gateway's own tool calls left out of its first choice. */
function withoutReads(completion: Record<string, unknown>, name: string): Record<string, unknown> {
  const [first, ...others] = (completion.choices as Array<{ message?: ChatMessage; finish_reason?: unknown }>) ?? [];
  if (!first?.message) return completion;
  const calls = (first.message.tool_calls as Array<{ function?: { name?: unknown } }>).filter((call) => call.function?.name !== name);
  const { tool_calls: _calls, ...message } = first.message;
  const choice = { ...first, message: calls.length > 0 ? { ...message, tool_calls: calls } : message, finish_reason: calls.length > 0 ? first.finish_reason : 'stop' };
  return { ...completion, choices: [choice, ...others] };
}

function checkOptions(options: GatewayOptions): { upstream: string; windowTokens: number } {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'gateway options', message: 'gateway options: an object is required' });
  let upstream: URL;
  try {
    upstream = new URL(String(options.upstream));
  } catch (cause) {
    throw new ConfigurationError({ setting: 'upstream', message: `gateway options.upstream is not a URL: ${JSON.stringify(options.upstream)}`, cause });
  }
  if (!Number.isSafeInteger(options.windowTokens) || options.windowTokens < 1_000) {
    throw new ConfigurationError({ setting: 'windowTokens', message: `gateway options.windowTokens must be an integer of at least 1000, got ${JSON.stringify(options.windowTokens)}` });
  }
  for (const [name, methods] of [['sessionStore', ['load', 'append', 'replace']], ['outputStore', ['get', 'put']]] as const) {
    const store = options[name] as unknown as Record<string, unknown> | undefined;
    if (typeof store !== 'object' || store === null || methods.some((method) => typeof store[method] !== 'function')) {
      throw new ConfigurationError({ setting: name, message: `gateway options.${name} must be a store with ${methods.join(' and ')} (see @strata/store)` });
    }
  }
  if (options.upstreamApiKey !== undefined && typeof options.upstreamApiKey !== 'string') throw new ConfigurationError({ setting: 'upstreamApiKey', message: 'gateway options.upstreamApiKey must be a string when given' });
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new ConfigurationError({ setting: 'fetch', message: 'gateway options.fetch must be a function when given' });
  return { upstream: upstream.toString().replace(/\/+$/, ''), windowTokens: options.windowTokens };
}

/** For each n from 0 to the number of messages, a hash of the first n messages (each chained on the one before). */
function prefixHashes(messages: readonly ChatMessage[]): string[] {
  const hashes = [createHash('sha256').digest('hex')];
  for (const message of messages) hashes.push(createHash('sha256').update(hashes.at(-1)!).update(JSON.stringify(message)).digest('hex'));
  return hashes;
}

/** The client's messages, with the read rounds answered before spliced back after the messages they followed. */
function withRounds(messages: readonly ChatMessage[], prefixes: readonly string[], rounds: BoundedCache<string, readonly ChatMessage[]>): ChatMessage[] {
  const result: ChatMessage[] = [];
  for (let index = 0; index <= messages.length; index += 1) {
    // The newest request's own prefix has no round yet unless it is a retry: a retry is answered afresh.
    if (index > 0 && index < messages.length) result.push(...(rounds.get(prefixes[index]!) ?? []));
    if (index < messages.length) result.push(messages[index]!);
  }
  return result;
}

/** Each chat message with its canonical form; the message itself goes upstream while Strata leaves it unchanged. */
function importChat(messages: readonly ChatMessage[]): ImportedMessage<ChatMessage | null>[] {
  const canonical: CanonicalMessage[] = fromOpenAIChat(messages, { path: 'messages' });
  // The reader maps one message to one canonical message, except parts it splits; then every message is converted anew.
  if (canonical.length !== messages.length) return canonical.map((message) => ({ message, origin: null }));
  return canonical.map((message, index) => ({ message, origin: messages[index]! }));
}

function toolName(tool: unknown): unknown {
  return (tool as { function?: { name?: unknown } } | null)?.function?.name;
}

function toolSchemas(tools: readonly unknown[]): ToolSchema[] {
  return tools.flatMap((tool) => {
    const fn = (tool as { function?: { name?: unknown; description?: unknown; parameters?: unknown } } | null)?.function;
    if (typeof fn?.name !== 'string') return [];
    return [{ name: fn.name, description: typeof fn.description === 'string' ? fn.description : undefined, parameters: (typeof fn.parameters === 'object' && fn.parameters !== null ? fn.parameters : {}) as Record<string, unknown> }];
  });
}

function upstreamHeaders(incoming: Headers, apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const authorization = apiKey ? `Bearer ${apiKey}` : incoming.get('authorization');
  if (authorization) headers.authorization = authorization;
  for (const name of ['openai-organization', 'openai-project']) {
    const value = incoming.get(name);
    if (value) headers[name] = value;
  }
  return headers;
}

async function readJsonObject(request: Request): Promise<Record<string, unknown> | string> {
  let value: unknown;
  try {
    value = JSON.parse(await request.text());
  } catch {
    return 'the request body is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the request body must be a JSON object';
  return value as Record<string, unknown>;
}

function openAIError(status: number, message: string): Response {
  return Response.json({ error: { message, type: 'invalid_request_error', param: null, code: null } }, { status });
}

/** The upstream's response as it came: status, body and content type. */
async function relay(response: Response): Promise<Response> {
  const contentType = response.headers.get('content-type');
  return new Response(await response.arrayBuffer(), { status: response.status, headers: contentType ? { 'content-type': contentType } : {} });
}

/** A completion as the chat stream's chunks: the message in one delta, then the finish reason and usage, then `[DONE]`. */
function sse(completion: Record<string, unknown>, headers: Record<string, string>): Response {
  const choices = (completion.choices as Array<{ index?: number; message?: ChatMessage; finish_reason?: unknown }> | undefined) ?? [];
  const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model };
  const events: unknown[] = [];
  for (const choice of choices) {
    const message = choice.message ?? {};
    const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<Record<string, unknown>>).map((call, index) => ({ index, ...call })) : undefined;
    const delta = { role: 'assistant', content: message.content ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    events.push({ ...base, choices: [{ index: choice.index ?? 0, delta, finish_reason: null }] });
    events.push({ ...base, choices: [{ index: choice.index ?? 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
  }
  events.push({ ...base, choices: [], usage: completion.usage ?? null, strata: completion.strata });
  const text = events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + 'data: [DONE]\n\n';
  return new Response(text, { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}
