// One scripted model behind local upstream fakes of each API (OpenAI chat, Anthropic messages, OpenAI Responses):
// it calls the client's `run_step` tool STEPS times, and whenever a request shows a masked output it has not read,
// reads it whole through `read_tool_output` (part by part) before going on.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { fromAnthropicMessages, fromOpenAIChat, type CanonicalMessage } from '@strata/context';
import { nextArgumentsOf } from '@strata/tools';
import { fromResponsesInput } from '../responses-wire.js';
import { anthropicEvents, openAIEvents, responsesEvents, STEPS, writeEvents } from './gateway-fixtures.js';

export type UpstreamDialect = 'openai-chat' | 'anthropic' | 'responses';

export interface ScriptedRequest {
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, any>;
  /** The request's history as canonical messages, read by the repo's importer of its API. */
  readonly history: CanonicalMessage[];
}

export interface ScriptedUpstream {
  readonly server: Server;
  readonly requests: ScriptedRequest[];
  /** What the model read back of each masked output, by the call id of the output. */
  readonly readBack: Map<string, string>;
  /** The reasoning items the model sent (Responses, with `reasoning`), by id, as sent. */
  readonly reasoning: Map<string, Record<string, unknown>>;
  /** Every `GET /v1/models` or `/v1/models/{id}`: its path with query, and headers. */
  readonly modelRequests: Array<{ readonly url: string; readonly headers: IncomingMessage['headers'] }>;
  /** When set, every request is answered with this status and body (recorded all the same). */
  fail?: { readonly status: number; readonly body: string };
}

/** The models every scripted upstream lists (Anthropic's list gives at most MODEL_PAGE of them a page). */
export const MODEL_IDS = ['model-a', 'org/model-b', 'model-c'] as const;
const MODEL_PAGE = 2;
const MODEL_CREATED = 1_700_000_000;

/** A model list or model as the dialect's API answers it (Anthropic's paged by `limit` and `after_id`); undefined for an unknown id. */
function modelsAnswer(dialect: UpstreamDialect, url: URL): unknown {
  const entry = (id: string) => (dialect === 'anthropic' ? { type: 'model', id, display_name: id.toUpperCase(), created_at: new Date(MODEL_CREATED * 1000).toISOString() } : { id, object: 'model', created: MODEL_CREATED, owned_by: 'scripted' });
  const id = url.pathname.startsWith('/v1/models/') ? decodeURIComponent(url.pathname.slice('/v1/models/'.length)) : undefined;
  if (id !== undefined) return (MODEL_IDS as readonly string[]).includes(id) ? entry(id) : undefined;
  if (dialect !== 'anthropic') return { object: 'list', data: MODEL_IDS.map(entry) };
  const after = url.searchParams.get('after_id');
  const start = after === null ? 0 : MODEL_IDS.indexOf(after as (typeof MODEL_IDS)[number]) + 1;
  const page = MODEL_IDS.slice(start, start + Math.min(Number(url.searchParams.get('limit') ?? 20), MODEL_PAGE)).map(entry);
  return { data: page, has_more: start + page.length < MODEL_IDS.length, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null };
}

/** The final answer of the scripted model. */
export const FINAL_ANSWER = 'The fix: round the microseconds instead of truncating them.';

type Action = { kind: 'call'; id: string; name: string; input: Record<string, unknown> } | { kind: 'text'; text: string };

const historyOf = (dialect: UpstreamDialect, body: Record<string, any>): CanonicalMessage[] =>
  dialect === 'openai-chat' ? fromOpenAIChat(body.messages) : dialect === 'anthropic' ? fromAnthropicMessages(body) : fromResponsesInput(body.input);

/**
 * A scripted upstream of `dialect` on node:http (listen with `listen`),
 * streamed as its API streams when a request asks (each event in its own write). With
 * `reasoning` (Responses only) each answer starts with a reasoning item with
 * encrypted content, which the client is to send back as received.
 */
export function scriptedUpstream(dialect: UpstreamDialect, options: { readonly reasoning?: boolean } = {}): ScriptedUpstream {
  const requests: ScriptedRequest[] = [];
  const readBack = new Map<string, string>();
  const reasoning = new Map<string, Record<string, unknown>>();
  let reading: { callId: string; text: string } | undefined;
  let reads = 0;
  // The model's own count of the steps it asked for: the window may no longer show the early ones.
  let made = 0;

  const decide = (history: readonly CanonicalMessage[]): Action => {
    const last = history.at(-1);
    if (reading && last?.role === 'tool' && last.toolCallId.startsWith('read-')) {
      reading.text += last.content.slice(last.content.indexOf('\n') + 1);
      const next = nextArgumentsOf(last.content);
      if (next) return { kind: 'call', id: `read-${reads++}`, name: 'read_tool_output', input: next as unknown as Record<string, unknown> };
      readBack.set(reading.callId, reading.text);
      reading = undefined;
    }
    const masked = history.find((message) => message.role === 'tool' && message.toolCallId.startsWith('call-') && message.content.startsWith('[stored output ref="') && !readBack.has(message.toolCallId));
    if (masked && masked.role === 'tool') {
      reading = { callId: masked.toolCallId, text: '' };
      return { kind: 'call', id: `read-${reads++}`, name: 'read_tool_output', input: { ref: /ref="([^"]+)"/.exec(masked.content)![1]!, lines: { start: 1 } } };
    }
    if (made >= STEPS) return { kind: 'text', text: FINAL_ANSWER };
    const call: Action = { kind: 'call', id: `call-${made}`, name: 'run_step', input: { step: made } };
    made += 1;
    return call;
  };

  const answer = (action: Action, body: Record<string, any>, n: number): Record<string, unknown> => {
    if (dialect === 'openai-chat') {
      const message = action.kind === 'text' ? { role: 'assistant', content: action.text } : { role: 'assistant', content: null, tool_calls: [{ id: action.id, type: 'function', function: { name: action.name, arguments: JSON.stringify(action.input) } }] };
      return { id: `chatcmpl-${n}`, object: 'chat.completion', created: 1_700_000_000, model: body.model, choices: [{ index: 0, message, finish_reason: action.kind === 'text' ? 'stop' : 'tool_calls' }], usage: { prompt_tokens: 1_000, completion_tokens: 20, total_tokens: 1_020 } };
    }
    if (dialect === 'anthropic') {
      const content = action.kind === 'text' ? [{ type: 'text', text: action.text }] : [{ type: 'tool_use', id: action.id, name: action.name, input: action.input }];
      return { id: `msg_${n}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: action.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null, usage: { input_tokens: 1_000, output_tokens: 20 } };
    }
    const output: Array<Record<string, unknown>> = [];
    if (options.reasoning) {
      const item = { type: 'reasoning', id: `rs_${n}`, summary: [{ type: 'summary_text', text: `Thinking about request ${n}.` }], encrypted_content: `gAAAA-encrypted-${n}-${'x'.repeat(n % 7)}` };
      reasoning.set(item.id, item);
      output.push(item);
    }
    output.push(action.kind === 'text'
      ? { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: action.text, annotations: [] }] }
      : { type: 'function_call', id: `fc_${n}`, call_id: action.id, name: action.name, arguments: JSON.stringify(action.input), status: 'completed' });
    return {
      id: `resp_${n}`, object: 'response', created_at: 1_700_000_000, status: 'completed', error: null, incomplete_details: null, model: body.model, output,
      parallel_tool_calls: true, tool_choice: 'auto', tools: body.tools ?? [], service_tier: 'default',
      usage: { input_tokens: 1_000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1_020 },
    };
  };

  const modelRequests: ScriptedUpstream['modelRequests'] = [];
  const server = createServer(async (request, response) => {
    if (request.method === 'GET' && request.url?.startsWith('/v1/models')) {
      modelRequests.push({ url: request.url, headers: request.headers });
      if (state.fail) return void response.writeHead(state.fail.status, { 'content-type': 'application/json' }).end(state.fail.body);
      const answered = modelsAnswer(dialect, new URL(request.url, 'http://upstream'));
      if (answered === undefined) return void response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(dialect === 'anthropic' ? { type: 'error', error: { type: 'not_found_error', message: 'no such model' } } : { error: { message: 'no such model', type: 'invalid_request_error', param: null, code: 'model_not_found' } }));
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answered));
    }
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw) as Record<string, any>;
    const history = historyOf(dialect, body);
    requests.push({ headers: request.headers, body, history });
    if (state.fail) {
      response.writeHead(state.fail.status, { 'content-type': 'application/json' }).end(state.fail.body);
      return;
    }
    const answered = answer(decide(history), body, requests.length);
    if (body.stream !== true) return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answered));
    const events = dialect === 'openai-chat' ? openAIEvents(answered, body.stream_options?.include_usage === true) : dialect === 'anthropic' ? anthropicEvents(answered) : responsesEvents(answered);
    await writeEvents(response, events);
  });
  const state: ScriptedUpstream = { server, requests, readBack, reasoning, modelRequests };
  return state;
}
