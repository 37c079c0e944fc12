// The gateway's HTTP front ends: OpenAI chat and Anthropic messages endpoints whose every upstream request Strata assembles.
import { Hono } from 'hono';
import { BoundedCache, ConfigurationError, ContextBudgetError, ConservativeTokenEstimator, createHostLoopContext, type HostLoopContext, type ImportedMessage, type SessionStore, type ToolOutputStore, type TraceSink } from '@strata/context';
import { createMemoryStores } from '@strata/store';
import { createReadToolOutputTool, hostToolResultStore } from '@strata/tools';
import { ClientStream, upstreamEvents } from './client-stream.js';
import { ANTHROPIC_WIRE, OPENAI_WIRE, relay, type ChatMessage, type Wire } from './wires.js';
import { RESPONSES_WIRE, responsesRequest } from './responses-wire.js';
import { storedOncePerCall } from './stored-once.js';
import { ReturnedItems } from './returned-items.js';
import { DROPPED_FIELDS_HEADER, translatedModel, translatedModelList, translatedWire, type GatewayProvider } from './provider-wire.js';
import { finishReasonOf, modelUsageOf, responseMetadataOf, type GatewayEvent, type GatewayRequestTelemetry, type GatewayStopReason, type GatewayTelemetry } from './gateway-telemetry.js';

/** The header a client names its conversation with; without it the conversation is keyed by its opening (system + first user message). */
export const SESSION_HEADER = 'x-strata-session';
/** The response header naming the context the gateway continued. */
export const CONTEXT_HEADER = 'x-strata-context';
/** The response header with the upstream calls the gateway made for this request (more than 1 when it answered `read_tool_output` itself). */
export const UPSTREAM_CALLS_HEADER = 'x-strata-upstream-calls';
/** The response header with the input tokens the gateway saved on the last upstream call: the client's whole history and tools less what was sent, both by the conservative estimate. */
export const SAVED_TOKENS_HEADER = 'x-strata-saved-tokens';
/** Rounds of `read_tool_output` the gateway answers in one client request before it returns what the model said last. */
export const MAX_READ_ROUNDS = 32;
/** Contexts whose last upstream request the gateway remembers (for its cache marker). */
const CONTEXTS_KEPT = 4_096;
/** The response header of a Responses request passed upstream as it came, naming why (`item_reference`, `previous_response_id`, `conversation`). */
export const PASS_THROUGH_HEADER = 'x-strata-pass-through';

export interface GatewayOptions {
  /** The upstream's base URL, e.g. `https://api.openai.com/v1` (the gateway appends `/chat/completions`, `/messages`, `/models`). */
  readonly upstream: string;
  /**
   * Input tokens of every upstream request at most (the window less nothing: the output reserve is the client's `max_tokens`);
   * or the window of the model a request names, asked per request (`createWindowResolver`: discovered from the upstream, cached).
   * A resolver that throws answers the request with a 400 naming the model.
   */
  readonly windowTokens: number | GatewayWindow;
  readonly sessionStore: SessionStore;
  readonly outputStore: ToolOutputStore;
  /** Sent upstream instead of the client's own key. Default: the client's `Authorization` header, forwarded. */
  readonly upstreamApiKey?: string;
  /** How upstream calls are made. Default: the global fetch (undici). */
  readonly fetch?: typeof fetch;
  /** Receives one trace document per upstream call (`createFileTraceSink`: what `/strata/view` shows). Default: none. */
  readonly traceSink?: TraceSink;
  /**
   * Starts each client request's telemetry once its context is known: one trace per request, a span per upstream call
   * (the CLI passes `createAgentTelemetry` of @strata/agent over the OTLP tracer the OTEL_* variables ask for).
   * What it throws never changes the request's outcome. Default: none.
   */
  readonly telemetry?: GatewayTelemetry;
  /**
   * The API of every upstream request. Default: none, each front end forwards in its own API.
   * Given, the chat and messages front ends of the other API translate (see `translatedWire`: the upstream is called
   * unstreamed and a streamed request gets the finished answer replayed as its stream), and `/v1/responses` is
   * refused with a 400 unless it is `openai`.
   */
  readonly provider?: GatewayProvider;
}

/** The window of the model a request names: `api` is the upstream's (the front end's without `provider`), `apiKey` the key the request goes upstream with. */
export type GatewayWindow = (request: { readonly model: string; readonly api: 'openai' | 'anthropic'; readonly apiKey: string | undefined }) => Promise<number>;


/**
 * An OpenAI- and Anthropic-compatible gateway (`POST /v1/chat/completions`
 * and `POST /v1/messages`, streamed and not, each forwarded in its own API;
 * `GET /v1/models` and `/v1/models/{id}` passed through, in the client's
 * API under `provider`; `GET /health`). Each conversation is
 * one Strata context (the `x-strata-session` header, else its opening),
 * kept in `sessionStore`; the upstream request is the window Strata
 * assembles within `windowTokens`, with `read_tool_output` added to the
 * tools. When the model calls `read_tool_output` the gateway answers it and
 * calls the model again, so the client sees only its own tools' calls and
 * the final answer. Fields of the request the gateway does not read go
 * upstream untouched; upstream errors come back with their status and body.
 * With `provider`, every upstream request is in that API (see `translatedWire`).
 */
export function createGatewayApp(options: GatewayOptions): Hono {
  const settings = checkOptions(options);
  const upstreamWire = options.provider === undefined ? undefined : options.provider === 'anthropic' ? ANTHROPIC_WIRE : OPENAI_WIRE;
  /** A front end's wire over the upstream's API: itself without a provider or when the APIs agree, else translated. */
  const over = (wire: Wire): Wire => (upstreamWire === undefined || upstreamWire === wire ? wire : translatedWire(wire, upstreamWire));
  const chatWire = over(OPENAI_WIRE);
  const messagesWire = over(ANTHROPIC_WIRE);
  const fetchUpstream = options.fetch ?? fetch;
  const readTool = createReadToolOutputTool({ store: options.outputStore });
  // Once per call: a retry that starts its context over gives the client's results again (see stored-once.ts).
  const storeClientResult = hostToolResultStore(storedOncePerCall(options.outputStore));
  // The pipeline's default estimator: what the history would have cost is counted as what was sent is.
  const estimator = new ConservativeTokenEstimator();
  // One context pipeline per window (one unless the window is resolved per model); each keeps its contexts in the same stores.
  const contexts = new Map<number, HostLoopContext<ChatMessage | null>>();
  const contextFor = (windowTokens: number): HostLoopContext<ChatMessage | null> => {
    let context = contexts.get(windowTokens);
    if (context === undefined) {
      context = createHostLoopContext<ChatMessage | null>({
        budget: { inputCapTokens: windowTokens },
        sessionStore: options.sessionStore,
        outputStore: options.outputStore,
        traceSink: options.traceSink,
        // The gateway's own read answers are copies of stored outputs: kept as they are, never stored again.
        storeResult: async (request) => (request.result.toolName === readTool.name ? request.result : storeClientResult(request)),
      });
      contexts.set(windowTokens, context);
    }
    return context;
  };
  // Each context's last upstream request, as hashes of its messages: where the next one's stable prefix ends (its cache marker).
  // Lost (another process, a restart): the marker goes where a tool loop's previous request ended (`withCacheMarker`).
  const sentChains = new BoundedCache<string, readonly string[]>(CONTEXTS_KEPT);
  // The Responses output items the gateway returned (in this process or another over the same store), by id.
  const returnedItems = new ReturnedItems(options.outputStore);
  /** One client request through the loop: what the wire reads, Strata assembles, the upstream answers and the gateway reads itself. */
  const converse = async (wire: Wire, c: { req: { raw: Request; header(name: string): string | undefined } }): Promise<Response> => {
    const body = await readJsonObject(c.req.raw);
    if (typeof body === 'string') return wire.error(400, body);
    if (!Array.isArray(body.messages) || body.messages.some((message) => typeof message !== 'object' || message === null)) return wire.error(400, 'messages: an array of message objects is required');
    const clientMessages = body.messages as ChatMessage[];
    const clientTools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    const tools = [...wire.toolSchemas(clientTools).filter((tool) => tool.name !== readTool.name), { name: readTool.name, description: readTool.description, parameters: readTool.parameters }];
    const headers = wire.headers(c.req.raw.headers, options.upstreamApiKey);
    const dropped = wire.dropped?.(body) ?? [];
    const droppedHeader: Record<string, string> = dropped.length > 0 ? { [DROPPED_FIELDS_HEADER]: dropped.join(', ') } : {};
    let context: HostLoopContext<ChatMessage | null>;
    try {
      context = contextFor(await windowOf(settings.windowTokens, wire, body, headers));
    } catch (error) {
      return wire.error(400, error instanceof Error ? error.message : String(error));
    }
    let hostCount: number;
    try {
      hostCount = wire.import(body, clientMessages).length;
    } catch (error) {
      return wire.error(400, error instanceof Error ? error.message : String(error));
    }
    // Streamed as the provider streams it where the wire can forward events; else the finished answer is replayed as a stream.
    const streamed = body.stream === true && wire.forward !== undefined && wire.finish !== undefined && wire.streamFields !== undefined;
    // The first call resolves the context (the header, else the opening); the read rounds of this request continue it.
    let contextId = c.req.header(SESSION_HEADER) || undefined;
    // This request's read rounds: the gateway's own messages after the client's, kept in the session's history (`ownMessages`).
    let own: ChatMessage[] = [];
    let calls = 0;
    let readCalls = 0;
    let client: ClientStream | undefined;
    // The upstream call itself failed (no answer at all): a 502, not the gateway's own 500.
    let unreachable = false;
    // This request's telemetry, started once the first call resolved its context; a failure in it is ignored.
    let observed: GatewayRequestTelemetry | undefined;
    const observe = (event: GatewayEvent) => ignoreFailure(() => observed?.onEvent(event));
    const prepare = async () => {
      const imported = wire.import(body, [...clientMessages, ...own]);
      const ownMessages = imported.slice(hostCount);
      const turn = await context.prepare({ contextId, scope: 'gateway', messages: imported.slice(0, hostCount), ownMessages, tools });
      contextId = turn.contextId;
      if (observed === undefined && options.telemetry !== undefined) {
        const request = { provider: wire.api, model: typeof body.model === 'string' && body.model !== '' ? body.model : 'unknown', contextId: turn.contextId };
        ignoreFailure(() => (observed = options.telemetry!(request)));
      }
      return { turn, imported: imported.slice(0, hostCount) };
    };
    // Why the request ended, for its telemetry (set where the loop returns or fails).
    let stopReason: GatewayStopReason = 'completed';
    let respond!: (response: Response) => void;
    // The handler answers once the first upstream answer is in (a stream's events follow while the loop runs on); a failure is an answer too.
    const responded = new Promise<Response>((resolve) => {
      respond = resolve;
    });
    const loop = async (): Promise<Response> => {
      for (;;) {
        const { turn, imported } = await prepare();
        let upstreamBody = { ...wire.upstreamBody(body, turn.messages), ...(streamed ? wire.streamFields!(body) : {}), tools: wire.upstreamTools(clientTools, readTool) };
        if (wire.markCache) {
          const marked = wire.markCache(upstreamBody, sentChains.get(turn.contextId));
          upstreamBody = marked.body as typeof upstreamBody;
          sentChains.set(turn.contextId, marked.chain);
        }
        calls += 1;
        observe({ type: 'turn-start', turn: calls });
        observe({ type: 'context-assembled', turn: calls, trace: turn.assembled.trace });
        let response: Response;
        try {
          response = await fetchUpstream(`${settings.upstream}${wire.path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(upstreamBody), signal: c.req.raw.signal });
        } catch (error) {
          unreachable = true;
          throw error;
        }
        if (!response.ok) {
          stopReason = 'model-error';
          observe({ type: 'turn-end', turn: calls });
          await context.recordUsage(turn, { error: response.status });
          if (client === undefined) {
            if (wire.upstreamError === undefined) return relay(response);
            const failed = wire.upstreamError(response.status, await response.text());
            for (const [name, value] of Object.entries(droppedHeader)) failed.headers.set(name, value);
            return failed;
          }
          // The stream already began: the upstream's error is its last event.
          client.send('error', upstreamError(response.status, await response.text()));
          client.end();
          return client.response({});
        }
        const budget = turn.assembled.trace.budget;
        // No budget: the legacy path assembled the turn, and nothing is measured.
        const whole = budget === null ? 0 : imported.reduce((sum, { message }) => sum + estimator.countMessage(message), budget.toolTokens);
        const savedTokens = budget === null ? null : Math.max(0, whole - budget.totalTokens);
        let completion: Record<string, unknown>;
        if (streamed) {
          // An upstream that answers a streamed call unstreamed (some compatible servers): its answer is forwarded as its events
          // (read before the client's stream begins, so that an answer that is not JSON is still an error response).
          const events = (response.headers.get('content-type') ?? '').includes('text/event-stream') ? response : wire.stream((await response.json()) as Record<string, unknown>, {});
          if (client === undefined) {
            client = new ClientStream();
            respond(client.response({ [CONTEXT_HEADER]: turn.contextId, ...(savedTokens === null ? {} : { [SAVED_TOKENS_HEADER]: String(savedTokens) }) }));
          }
          completion = await wire.forward!(upstreamEvents(events), readTool.name, client);
        } else completion = (await response.json()) as Record<string, unknown>;
        const usage = wire.usage(completion);
        if (wire.answer) completion = wire.answer(completion);
        await context.recordUsage(turn, { usage });
        const { reads, total } = wire.calls(completion, readTool.name);
        // The client never sees a `read_tool_output` call: beside its own calls, or past MAX_READ_ROUNDS, they are left out.
        const shown = reads.length === 0 ? completion : wire.withoutReads(completion, readTool.name);
        if (wire === RESPONSES_WIRE) await returnedItems.remember(Array.isArray(shown.output) ? (shown.output as unknown[]) : []);
        observe({ type: 'usage', usage: modelUsageOf(usage), finishReason: finishReasonOf(completion, total), response: responseMetadataOf(completion) });
        const mixed = reads.length > 0 && reads.length < total;
        const answered = reads.length > 0 && calls <= MAX_READ_ROUNDS && (!mixed || wire.readsOnly !== undefined);
        if (answered) {
          const answers: Array<{ id: string; content: string }> = [];
          for (const call of reads) {
            const toolCall = { id: call.id, name: readTool.name, input: call.input };
            observe({ type: 'tool-call-start', call: toolCall });
            const outcome = await readTool.execute(call.input, { contextId: turn.contextId, toolCallId: call.id, signal: c.req.raw.signal });
            answers.push({ id: call.id, content: outcome.content });
            observe({ type: 'tool-call-end', call: toolCall, result: { role: 'tool', toolCallId: call.id, toolName: readTool.name, content: outcome.content, isError: outcome.isError } });
          }
          readCalls += answers.length;
          observe({ type: 'turn-end', turn: calls });
          if (!mixed) {
            // Every call is the gateway's own: the round joins the history and the model is called again.
            own = [...own, ...wire.round(completion, answers)];
            continue;
          }
          // Client calls beside the reads: the reads are kept as a round of their own before the client's calls (the model's answer
          // split in two, each call followed by its result), recorded now so that the client's next history continues after it.
          own = [...own, ...wire.round(wire.readsOnly!(completion, readTool.name), answers)];
          await prepare();
        } else observe({ type: 'turn-end', turn: calls });
        // The extension field beside the upstream's own usage, which is passed on untouched.
        const extended = { ...shown, strata: { contextId: turn.contextId, upstreamCalls: calls, readToolOutputCalls: readCalls, sentTokens: budget?.totalTokens ?? null, savedTokens } };
        if (client !== undefined) {
          wire.finish!(extended, client);
          client.end();
          return client.response({});
        }
        const responseHeaders = { ...droppedHeader, [CONTEXT_HEADER]: turn.contextId, [UPSTREAM_CALLS_HEADER]: String(calls), ...(savedTokens === null ? {} : { [SAVED_TOKENS_HEADER]: String(savedTokens) }) };
        return body.stream === true ? wire.stream(extended, responseHeaders) : Response.json(extended, { headers: responseHeaders });
      }
    };
    const ended = () => {
      observe({ type: 'run-end', stopReason: c.req.raw.signal.aborted ? 'cancelled' : stopReason });
      ignoreFailure(() => observed?.end());
    };
    loop().then((response) => {
      respond(response);
      ended();
    }, (error: unknown) => {
      const { status, message, code } = failureOf(error, unreachable);
      stopReason = unreachable ? 'model-error' : ContextBudgetError.isInstance(error) ? 'context-error' : 'runtime-error';
      ended();
      // Before any answer: the failure in the provider's error shape (a window too small for what must be kept is the request's 400).
      if (client === undefined) {
        respond(wire.error(status, message, code));
        return;
      }
      // Mid-stream: the client sees the stream end with an error event, and may retry.
      client.send('error', { type: 'error', status, error: { type: status >= 500 ? 'api_error' : 'invalid_request_error', message, ...(code ? { code } : {}) } });
      client.end();
    });
    return responded;
  };

  /**
   * `POST /v1/messages/count_tokens`: the input tokens of the window Strata
   * would assemble for this history from scratch (in scratch stores: nothing
   * is stored, no context continued), by the conservative estimate that
   * decides the window, so never below what the window costs by our count.
   * Not forwarded, whatever the `provider`: the upstream would count the client's whole history (and an OpenAI
   * upstream has no such endpoint); the count is our own estimate.
   */
  const countTokens = async (request: Request): Promise<Response> => {
    const body = await readJsonObject(request);
    if (typeof body === 'string') return ANTHROPIC_WIRE.error(400, body);
    if (!Array.isArray(body.messages) || body.messages.some((message) => typeof message !== 'object' || message === null)) return ANTHROPIC_WIRE.error(400, 'messages: an array of message objects is required');
    let imported: ImportedMessage<ChatMessage | null>[];
    try {
      imported = ANTHROPIC_WIRE.import(body, body.messages as ChatMessage[]);
    } catch (error) {
      return ANTHROPIC_WIRE.error(400, error instanceof Error ? error.message : String(error));
    }
    const clientTools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    const tools = [...ANTHROPIC_WIRE.toolSchemas(clientTools).filter((tool) => tool.name !== readTool.name), { name: readTool.name, description: readTool.description, parameters: readTool.parameters }];
    let windowTokens: number;
    try {
      windowTokens = await windowOf(settings.windowTokens, ANTHROPIC_WIRE, body, ANTHROPIC_WIRE.headers(request.headers, options.upstreamApiKey));
    } catch (error) {
      return ANTHROPIC_WIRE.error(400, error instanceof Error ? error.message : String(error));
    }
    const scratch = createMemoryStores();
    const counter = createHostLoopContext<ChatMessage | null>({ budget: { inputCapTokens: windowTokens }, sessionStore: scratch.sessions, outputStore: scratch.toolOutputs });
    const turn = await counter.prepare({ scope: 'count-tokens', messages: imported, tools });
    const counted = turn.assembled.trace.budget?.totalTokens ?? imported.reduce((sum, { message }) => sum + estimator.countMessage(message), 0);
    return Response.json({ input_tokens: counted });
  };

  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  /**
   * The model list or one model, asked with the client's key in the upstream's headers and answered in the client's API:
   * Anthropic's clients send `anthropic-version` on every request, OpenAI's never do.
   */
  const models = async (request: Request, id: string | undefined): Promise<Response> => {
    const client: GatewayProvider = request.headers.has('anthropic-version') ? 'anthropic' : 'openai';
    const headers = (client === 'anthropic' ? messagesWire : chatWire).headers(request.headers, options.upstreamApiKey);
    const path = `${settings.upstream}/models${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;
    if (upstreamWire === undefined || upstreamWire.api === client) return relay(await fetchUpstream(`${path}${new URL(request.url).search}`, { headers }));
    if (id !== undefined) return translatedModel(client, await fetchUpstream(path, { headers }));
    return translatedModelList(client, (query) => fetchUpstream(`${path}${query}`, { headers }));
  };
  app.get('/v1/models', (c) => models(c.req.raw, undefined));
  // An id may hold a slash (Hugging Face ids such as `Qwen/Qwen3-32B`).
  app.get('/v1/models/:id{.+}', (c) => models(c.req.raw, c.req.param('id')));
  app.post('/v1/chat/completions', (c) => converse(chatWire, c));
  app.post('/v1/messages', (c) => converse(messagesWire, c));
  app.post('/v1/messages/count_tokens', (c) => countTokens(c.req.raw));
  app.post('/v1/responses', async (c) => {
    // Not translated: the Responses API's items (reasoning, references, stored responses) have no Anthropic counterpart here.
    if (upstreamWire !== undefined && upstreamWire !== OPENAI_WIRE) return RESPONSES_WIRE.error(400, `/v1/responses is served over an OpenAI upstream only; this gateway runs with --provider ${options.provider}: use /v1/chat/completions or /v1/messages`);
    const request = await responsesRequest(c, (id) => returnedItems.recall(id));
    if (request instanceof Response) return request;
    if (!('passThrough' in request)) return converse(RESPONSES_WIRE, request);
    let response: Response;
    try {
      response = await fetchUpstream(`${settings.upstream}${RESPONSES_WIRE.path}`, { method: 'POST', headers: { ...RESPONSES_WIRE.headers(c.req.raw.headers, options.upstreamApiKey), 'content-type': 'application/json' }, body: request.passThrough, signal: c.req.raw.signal });
    } catch (error) {
      const { status, message, code } = failureOf(error, true);
      return RESPONSES_WIRE.error(status, message, code);
    }
    // As it came, streamed or not.
    const contentType = response.headers.get('content-type');
    return new Response(response.body, { status: response.status, headers: { ...(contentType ? { 'content-type': contentType } : {}), [PASS_THROUGH_HEADER]: request.reason } });
  });
  return app;
}


/** The window of this request: the configured one, else the resolver's for the model it names. */
async function windowOf(windowTokens: number | GatewayWindow, wire: Wire, body: Record<string, unknown>, headers: Record<string, string>): Promise<number> {
  if (typeof windowTokens === 'number') return windowTokens;
  if (typeof body.model !== 'string' || body.model.trim() === '') throw new Error('model: the gateway has no --window and finds the window by the model the request names; name one');
  const api = wire.api;
  const apiKey = api === 'anthropic' ? headers['x-api-key'] : headers.authorization?.replace(/^Bearer\s+/i, '');
  const tokens = await windowTokens({ model: body.model, api, apiKey: apiKey || undefined });
  if (!Number.isSafeInteger(tokens) || tokens < 1_000) throw new Error(`the window of ${body.model} must be an integer of at least 1000 tokens, the resolver gave ${JSON.stringify(tokens)}`);
  return tokens;
}

function checkOptions(options: GatewayOptions): { upstream: string; windowTokens: number | GatewayWindow } {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'gateway options', message: 'gateway options: an object is required' });
  let upstream: URL;
  try {
    upstream = new URL(String(options.upstream));
  } catch (cause) {
    throw new ConfigurationError({ setting: 'upstream', message: `gateway options.upstream is not a URL: ${JSON.stringify(options.upstream)}`, cause });
  }
  if (typeof options.windowTokens !== 'function' && (!Number.isSafeInteger(options.windowTokens) || options.windowTokens < 1_000)) {
    throw new ConfigurationError({ setting: 'windowTokens', message: `gateway options.windowTokens must be an integer of at least 1000 or a window resolver, got ${JSON.stringify(options.windowTokens)}` });
  }
  for (const [name, methods] of [['sessionStore', ['load', 'append', 'replace']], ['outputStore', ['get', 'put']]] as const) {
    const store = options[name] as unknown as Record<string, unknown> | undefined;
    if (typeof store !== 'object' || store === null || methods.some((method) => typeof store[method] !== 'function')) {
      throw new ConfigurationError({ setting: name, message: `gateway options.${name} must be a store with ${methods.join(' and ')} (see @strata/store)` });
    }
  }
  if (options.upstreamApiKey !== undefined && typeof options.upstreamApiKey !== 'string') throw new ConfigurationError({ setting: 'upstreamApiKey', message: 'gateway options.upstreamApiKey must be a string when given' });
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new ConfigurationError({ setting: 'fetch', message: 'gateway options.fetch must be a function when given' });
  if (options.provider !== undefined && options.provider !== 'openai' && options.provider !== 'anthropic') throw new ConfigurationError({ setting: 'provider', message: `gateway options.provider must be "openai" or "anthropic" when given, got ${JSON.stringify(options.provider)}` });
  if (options.telemetry !== undefined && typeof options.telemetry !== 'function') throw new ConfigurationError({ setting: 'telemetry', message: 'gateway options.telemetry must be a function when given' });
  if (options.traceSink !== undefined && typeof options.traceSink?.write !== 'function') throw new ConfigurationError({ setting: 'traceSink', message: 'gateway options.traceSink must be a trace sink (write) when given' });
  return { upstream: upstream.toString().replace(/\/+$/, ''), windowTokens: options.windowTokens };
}

/**
 * A failed turn as its answer: a `ContextBudgetError` (what must be kept does not fit the window) is a 400
 * (OpenAI's `context_length_exceeded`), an upstream that gave no answer a 502, anything else the gateway's 500.
 */
function failureOf(error: unknown, unreachable: boolean): { status: number; message: string; code?: string } {
  const text = error instanceof Error ? error.message : String(error);
  if (ContextBudgetError.isInstance(error)) return { status: 400, message: `the context window is too small for what must be kept: ${text}`, code: 'context_length_exceeded' };
  if (unreachable) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { status: 502, message: `the upstream gave no answer: ${text}${cause}`, code: 'upstream_unreachable' };
  }
  return { status: 500, message: `the gateway failed to answer: ${text}`, code: 'gateway_error' };
}

/** An upstream error as a stream's `error` event: its own body where that is a JSON error (both APIs' shape), else its text as the message. */
function upstreamError(status: number, text: string): Record<string, unknown> {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === 'object' && body !== null && 'error' in body) return { type: 'error', ...(body as Record<string, unknown>), status };
  } catch {
    // Not JSON: the text is the message.
  }
  return { type: 'error', status, error: { type: 'api_error', message: text } };
}

/** Runs `work`; what it throws is dropped (telemetry never changes a request's outcome). */
function ignoreFailure(work: () => void): void {
  try {
    work();
  } catch {
    // Telemetry failed: the request goes on without it.
  }
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



