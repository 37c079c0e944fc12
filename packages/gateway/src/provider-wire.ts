// A front end over an upstream of the other API (`--provider`): the client's wire reads the request and shapes the answer,
// the upstream's builds the upstream request and reads its answer; the history goes through the canonical messages.
import { toAnthropicMessages, toOpenAIChat, type CanonicalMessage, type JsonValue, type ToolSchema } from '@strata/context';
import type { ChatMessage, Wire } from './wires.js';

/** The API every upstream request is in (`strata gateway --provider`). */
export type GatewayProvider = 'openai' | 'anthropic';

/** The response header listing the client's request fields (and `tools[i]` entries) that have no meaning in the upstream's API and were not sent. */
export const DROPPED_FIELDS_HEADER = 'x-strata-dropped-fields';
/** The field of a translated error answer that holds the upstream's own error body, as parsed JSON (or its text when it is not JSON). */
export const UPSTREAM_ERROR_FIELD = 'upstream_error';
/** Anthropic's required `max_tokens` when the client's request names no output limit (`max_completion_tokens`, `max_tokens`): 4,096, what every Claude model accepts. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4_096;
/** Sent to an Anthropic upstream when the client gave no `anthropic-version` header (the API requires one). */
export const ANTHROPIC_VERSION = '2023-06-01';

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The client's request fields the translation carries over itself (the rest are mapped or dropped by `upstreamFields`). */
const CARRIED = new Set(['messages', 'tools', 'stream', 'stream_options', 'system']);

/**
 * The client's request fields in the upstream's API, and those that have
 * none there (dropped, never sent: the upstream would refuse or misread
 * them). Chat to messages: `max_completion_tokens` or `max_tokens` is
 * `max_tokens` (default DEFAULT_ANTHROPIC_MAX_TOKENS), `stop` is
 * `stop_sequences`, `temperature` is capped at 1 (Anthropic's most), `user`
 * is `metadata.user_id`, `tool_choice` and `parallel_tool_calls: false` are
 * Anthropic's `tool_choice`. Messages to chat: the reverse, `max_tokens`
 * being `max_completion_tokens`.
 */
export function upstreamFields(client: GatewayProvider, body: Fields): { fields: Fields; dropped: string[] } {
  const fields: Fields = {};
  const dropped: string[] = [];
  const known = client === 'openai' ? openAIToAnthropic(body, fields) : anthropicToOpenAI(body, fields);
  for (const name of Object.keys(body).sort()) if (!known.has(name) && !CARRIED.has(name)) dropped.push(name);
  return { fields, dropped };
}

function openAIToAnthropic(body: Fields, fields: Fields): Set<string> {
  if (body.model !== undefined) fields.model = body.model;
  const limit = body.max_completion_tokens ?? body.max_tokens;
  fields.max_tokens = typeof limit === 'number' ? limit : DEFAULT_ANTHROPIC_MAX_TOKENS;
  if (typeof body.temperature === 'number') fields.temperature = Math.min(1, body.temperature);
  if (body.top_p !== undefined && body.top_p !== null) fields.top_p = body.top_p;
  if (typeof body.stop === 'string') fields.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop)) fields.stop_sequences = body.stop;
  if (typeof body.user === 'string') fields.metadata = { user_id: body.user };
  const choice = body.tool_choice;
  let toolChoice: Fields | undefined;
  if (choice === 'auto') toolChoice = { type: 'auto' };
  else if (choice === 'none') toolChoice = { type: 'none' };
  else if (choice === 'required') toolChoice = { type: 'any' };
  else if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') toolChoice = { type: 'tool', name: choice.function.name };
  if (body.parallel_tool_calls === false && toolChoice?.type !== 'none') toolChoice = { ...(toolChoice ?? { type: 'auto' }), disable_parallel_tool_use: true };
  if (toolChoice !== undefined) fields.tool_choice = toolChoice;
  return new Set(['model', 'max_completion_tokens', 'max_tokens', 'temperature', 'top_p', 'stop', 'user', 'tool_choice', 'parallel_tool_calls']);
}

function anthropicToOpenAI(body: Fields, fields: Fields): Set<string> {
  if (body.model !== undefined) fields.model = body.model;
  if (typeof body.max_tokens === 'number') fields.max_completion_tokens = body.max_tokens;
  if (typeof body.temperature === 'number') fields.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) fields.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) fields.stop = body.stop_sequences;
  const metadata = body.metadata;
  if (isObject(metadata) && typeof metadata.user_id === 'string') fields.user = metadata.user_id;
  const choice = isObject(body.tool_choice) ? body.tool_choice : undefined;
  if (choice?.type === 'auto') fields.tool_choice = 'auto';
  else if (choice?.type === 'none') fields.tool_choice = 'none';
  else if (choice?.type === 'any') fields.tool_choice = 'required';
  else if (choice?.type === 'tool' && typeof choice.name === 'string') fields.tool_choice = { type: 'function', function: { name: choice.name } };
  if (choice?.disable_parallel_tool_use === true) fields.parallel_tool_calls = false;
  return new Set(['model', 'max_tokens', 'temperature', 'top_p', 'stop_sequences', 'metadata', 'tool_choice']);
}

/** Whether a client's tool entry is a function tool the other API can declare (Anthropic's server tools and OpenAI's custom tools are not). */
function translatable(client: GatewayProvider, tool: unknown): boolean {
  if (!isObject(tool)) return false;
  return client === 'openai' ? tool.type === 'function' : tool.type === undefined || tool.type === 'custom';
}

const STOP_REASONS: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', max_tokens: 'length', tool_use: 'tool_calls', refusal: 'content_filter' };
const FINISH_REASONS: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', function_call: 'tool_use', content_filter: 'refusal' };

function parseArguments(text: unknown): JsonValue {
  try {
    const value = JSON.parse(typeof text === 'string' && text !== '' ? text : '{}') as unknown;
    return isObject(value) ? (value as JsonValue) : {};
  } catch {
    return {};
  }
}

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** An Anthropic message as a chat completion: text joined, tool uses as tool calls, thinking left out; usage and stop reason mapped. */
function anthropicToChatCompletion(message: Fields): Fields {
  const blocks = (Array.isArray(message.content) ? message.content : []).filter(isObject);
  const text = blocks.filter((block) => block.type === 'text').map((block) => String(block.text ?? '')).join('');
  const calls = blocks.filter((block) => block.type === 'tool_use').map((block) => ({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } }));
  const usage = isObject(message.usage) ? message.usage : {};
  const cached = count(usage.cache_read_input_tokens);
  // OpenAI's prompt tokens include the cached ones; Anthropic's input tokens do not.
  const prompt = count(usage.input_tokens) + cached + count(usage.cache_creation_input_tokens);
  const completion = count(usage.output_tokens);
  const stop = typeof message.stop_reason === 'string' ? message.stop_reason : 'end_turn';
  return {
    id: message.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1_000),
    model: message.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, finish_reason: calls.length > 0 ? 'tool_calls' : (STOP_REASONS[stop] ?? 'stop') }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } },
  };
}

/** A chat completion's first choice as an Anthropic message: text (and refusal) as text blocks, tool calls as tool uses; usage and stop reason mapped. */
function chatCompletionToAnthropic(completion: Fields): Fields {
  const choice = (Array.isArray(completion.choices) ? completion.choices : []).filter(isObject)[0];
  const message: ChatMessage = isObject(choice?.message) ? choice.message : {};
  const content: Fields[] = [];
  for (const text of [message.content, message.refusal]) if (typeof text === 'string' && text !== '') content.push({ type: 'text', text });
  const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).filter(isObject);
  for (const call of calls) {
    const fn = isObject(call.function) ? call.function : {};
    content.push({ type: 'tool_use', id: String(call.id), name: String(fn.name), input: parseArguments(fn.arguments) });
  }
  const usage = isObject(completion.usage) ? completion.usage : {};
  const cached = count(isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : undefined);
  const finish = typeof choice?.finish_reason === 'string' ? choice.finish_reason : 'stop';
  return {
    id: completion.id,
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: calls.length > 0 ? 'tool_use' : (FINISH_REASONS[finish] ?? 'end_turn'),
    stop_sequence: null,
    usage: { input_tokens: count(usage.prompt_tokens) - cached, output_tokens: count(usage.completion_tokens), cache_read_input_tokens: cached, cache_creation_input_tokens: 0 },
  };
}

const ANTHROPIC_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'request_too_large', 'rate_limit_error', 'api_error', 'overloaded_error']);
const STATUS_ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 529: 'overloaded_error' };

/**
 * An upstream error in the client's error shape, its status kept: the
 * upstream's message and type where it gives them (else the status's),
 * and its whole body in UPSTREAM_ERROR_FIELD.
 */
export function translatedError(client: GatewayProvider, status: number, text: string): Response {
  let original: unknown = text;
  try {
    original = JSON.parse(text) as unknown;
  } catch {
    // Not JSON: the text is kept as it came.
  }
  const error = isObject(original) && isObject(original.error) ? original.error : {};
  const message = typeof error.message === 'string' ? error.message : text || `the upstream answered ${status}`;
  const upstreamType = typeof error.type === 'string' ? error.type : undefined;
  const statusType = STATUS_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const body = client === 'openai'
    ? { error: { message, type: upstreamType ?? statusType, param: typeof error.param === 'string' ? error.param : null, code: typeof error.code === 'string' ? error.code : null }, [UPSTREAM_ERROR_FIELD]: original }
    : { type: 'error', error: { type: upstreamType !== undefined && ANTHROPIC_ERROR_TYPES.has(upstreamType) ? upstreamType : statusType, message }, [UPSTREAM_ERROR_FIELD]: original };
  return Response.json(body, { status });
}

/** How many pages of Anthropic's model list an OpenAI client's one list reads at most (1,000 models a page). */
const MODEL_PAGES = 20;

/**
 * `GET /v1/models` of the upstream's API in the client's: OpenAI's list is
 * whole, Anthropic's paged, so an OpenAI client's list over Anthropic reads
 * every page (up to MODEL_PAGES) and an Anthropic client gets OpenAI's whole
 * list as one page. An upstream error comes back in the client's shape.
 */
export async function translatedModelList(client: GatewayProvider, fetchPage: (query: string) => Promise<Response>): Promise<Response> {
  if (client === 'openai') {
    const models: unknown[] = [];
    let after: string | undefined;
    for (let page = 0; page < MODEL_PAGES; page += 1) {
      const response = await fetchPage(`?limit=1000${after === undefined ? '' : `&after_id=${encodeURIComponent(after)}`}`);
      if (!response.ok) return translatedError(client, response.status, await response.text());
      const body = (await response.json()) as unknown;
      const data = isObject(body) && Array.isArray(body.data) ? body.data : [];
      models.push(...data);
      if (!isObject(body) || body.has_more !== true || typeof body.last_id !== 'string' || data.length === 0) break;
      after = body.last_id;
    }
    return Response.json({ object: 'list', data: models.flatMap((model) => translatedModelEntry(client, model) ?? []) });
  }
  const response = await fetchPage('');
  if (!response.ok) return translatedError(client, response.status, await response.text());
  const body = (await response.json()) as unknown;
  const data = (isObject(body) && Array.isArray(body.data) ? body.data : []).flatMap((model) => translatedModelEntry(client, model) ?? []);
  return Response.json({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

/** `GET /v1/models/{id}` of the upstream's API in the client's (a 404 in the client's shape for an answer that names no model). */
export async function translatedModel(client: GatewayProvider, response: Response): Promise<Response> {
  if (!response.ok) return translatedError(client, response.status, await response.text());
  const model = translatedModelEntry(client, (await response.json()) as unknown);
  return model === undefined ? translatedError(client, 404, 'the upstream answered with no model') : Response.json(model);
}

/** One model of the other API in the client's: its id, and its creation time (seconds in OpenAI's, RFC 3339 in Anthropic's); undefined for an entry with no id. */
function translatedModelEntry(client: GatewayProvider, model: unknown): (Fields & { readonly id: string }) | undefined {
  if (!isObject(model) || typeof model.id !== 'string') return undefined;
  if (client === 'openai') {
    const created = typeof model.created_at === 'string' ? Math.floor(Date.parse(model.created_at) / 1000) : Number.NaN;
    return { id: model.id, object: 'model', created: Number.isFinite(created) ? created : 0, owned_by: 'anthropic' };
  }
  const seconds = typeof model.created === 'number' && Number.isFinite(model.created) ? model.created : 0;
  const createdAt = new Date(seconds * 1000);
  return { type: 'model', id: model.id, display_name: model.id, created_at: (Number.isNaN(createdAt.getTime()) ? new Date(0) : createdAt).toISOString() };
}

/**
 * The client's wire over an upstream of the other API. The client's wire
 * reads the request, the history the gateway keeps and every answer the
 * loop reads (its calls, rounds and the client's stream, replayed from the
 * finished answer: the upstream is called unstreamed); the upstream's wire
 * gives the path, headers, tool entries, usage and prompt-cache markers,
 * and each upstream answer is translated into the client's API at once.
 */
export function translatedWire(client: Wire, upstream: Wire): Wire {
  const clientApi = client.api;
  return {
    api: upstream.api,
    path: upstream.path,
    opening: client.opening,
    import: client.import,
    upstreamBody(body, messages) {
      const { fields } = upstreamFields(clientApi, body);
      const history: CanonicalMessage[] = messages.map(({ message }) => message);
      if (upstream.api === 'openai') return { ...fields, messages: toOpenAIChat(history) };
      const { system, messages: converted } = toAnthropicMessages(history) as { system?: unknown; messages: unknown[] };
      return { ...fields, ...(system === undefined ? {} : { system }), messages: converted };
    },
    upstreamTools(clientTools, read) {
      const schemas = client.toolSchemas(clientTools.filter((tool) => translatable(clientApi, tool)));
      return [...schemas.filter((tool) => tool.name !== read.name), read].map((tool: ToolSchema) => upstream.toolEntry(tool));
    },
    dropped(body) {
      const tools = Array.isArray(body.tools) ? body.tools : [];
      return [...upstreamFields(clientApi, body).dropped, ...tools.flatMap((tool, index) => (translatable(clientApi, tool) ? [] : [`tools[${index}]`]))];
    },
    toolSchemas: client.toolSchemas,
    toolName: client.toolName,
    toolEntry: upstream.toolEntry,
    headers(incoming, apiKey) {
      const headers = upstream.headers(incoming, apiKey);
      // The client's key in the header its own API names it with goes in the upstream's.
      if (upstream.api === 'anthropic') {
        const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
        if (headers['x-api-key'] === undefined && bearer !== undefined) headers['x-api-key'] = bearer;
        delete headers.authorization;
        headers['anthropic-version'] ??= ANTHROPIC_VERSION;
      } else if (headers.authorization === undefined) {
        const key = incoming.get('x-api-key');
        if (key) headers.authorization = `Bearer ${key}`;
      }
      return headers;
    },
    usage: upstream.usage,
    answer: (completion) => (upstream.api === 'anthropic' ? anthropicToChatCompletion(completion) : chatCompletionToAnthropic(completion)),
    upstreamError: (status, text) => translatedError(clientApi, status, text),
    calls: client.calls,
    round: client.round,
    withoutReads: client.withoutReads,
    readsOnly: client.readsOnly,
    markCache: upstream.markCache,
    stream: client.stream,
    error: client.error,
  };
}
