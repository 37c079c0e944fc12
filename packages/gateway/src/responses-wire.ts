// `POST /v1/responses` (the OpenAI Responses API) as a third wire: input items read through the canonical history and sent
// back as the client sent them while Strata leaves them unchanged (reasoning items with their encrypted content included).
import { ContextInputError, fromCodexRollout, type CanonicalMessage, type ImportedMessage, type JsonValue, type ToolSchema } from '@strata/context';
import { eventData, type ClientStream } from './client-stream.js';
import { OPENAI_WIRE, sameApiTools, type ChatMessage, type Wire } from './wires.js';

export type Item = Record<string, unknown>;
/** The request as the gateway's loop reads it (the shape `converse` is given). */
export interface GatewayRequest {
  readonly req: { readonly raw: Request; header(name: string): string | undefined };
}

/** Items of the model's side of a step: with an assistant message, one canonical assistant message. */
const MODEL_ITEMS = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call']);
/** Items the history is read from; any other item (hosted tool calls and their outputs, MCP items, the harness's own) is the client's, passed upstream in place. */
const READ_ITEMS = new Set([...MODEL_ITEMS, 'message', 'function_call_output', 'custom_tool_call_output']);
/** The calls of a model step, by which a step and its canonical message line up. */
const CALL_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
/** The origin of the opening system message made from `instructions`: the client's field goes upstream as it came. */
const INSTRUCTIONS: ChatMessage = Object.freeze({ role: 'system', instructions: true });

/** A Responses item: a JSON object (what each entry of `input` and `output` must be). */
export const isItem = (value: unknown): value is Item => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `item` is one the history is read from (the short message form too); else it is passed through as the client sent it. */
const isHistoryItem = (item: Item): boolean => (item.type === undefined ? item.role !== undefined : READ_ITEMS.has(String(item.type)));

/**
 * Responses API input items to canonical history (the Codex rollout reader,
 * which reads the same items); an item without `type` but with a `role` is
 * the API's short message form. Items of any other type (hosted tool calls
 * and their outputs, MCP items) have no part in the history: they go
 * upstream in place with the items around them (`RESPONSES_WIRE.import`).
 * An `item_reference` the gateway could not resolve, an item that is not an
 * object or has no type, or a malformed read item is a `ContextInputError`
 * naming `input[i]` and its field.
 */
export function fromResponsesInput(items: readonly unknown[], path = 'input'): CanonicalMessage[] {
  const checked: Item[] = [];
  const indexes: number[] = [];
  items.forEach((item, index) => {
    if (!isItem(item)) throw ContextInputError.unexpected({ code: 'CONTEXT_MESSAGE_INVALID', path: `${path}[${index}]`, expected: 'an input item object', actual: item });
    if (item.type === 'item_reference') {
      throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: `${path}[${index}]`, message: `${path}[${index}]: an item_reference to an item the gateway did not return; send the item itself (store: false)` });
    }
    if (item.type === undefined && item.role === undefined) throw ContextInputError.unexpected({ code: 'CONTEXT_MESSAGE_INVALID', path: `${path}[${index}].type`, expected: 'an item type', actual: item.type });
    if (typeof item.type !== 'string' && item.type !== undefined) throw ContextInputError.unexpected({ code: 'CONTEXT_MESSAGE_INVALID', path: `${path}[${index}].type`, expected: 'an item type string', actual: item.type });
    if (!isHistoryItem(item)) return;
    checked.push(item.type === undefined ? { ...item, type: 'message' } : item);
    indexes.push(index);
  });
  try {
    return fromCodexRollout(checked);
  } catch (error) {
    if (!ContextInputError.isInstance(error)) throw error;
    // The reader names a bare item `[i]: line.field`; the request names it `input[i].field`.
    const rename = (text: string) => text.replace(/^\[(\d+)\]: line/, (_whole, at: string) => `${path}[${indexes[Number(at)] ?? at}]`);
    throw new ContextInputError({ code: error.code, culprit: rename(error.culprit), message: rename(error.message), cause: error });
  }
}

interface ItemGroup {
  readonly kind: 'model' | 'output' | 'message';
  readonly items: Item[];
}

/**
 * The items as the canonical messages they make, in order: a run of model
 * items is one step, each other read item one message. Items passed
 * through go with a step open when they come (it stays open across them),
 * else with the next read item when that is a model item (a hosted call,
 * then the answer), else with the group before them (an output after its
 * call), or, before any, with the first group.
 */
function itemGroups(items: readonly Item[]): ItemGroup[] {
  const groups: ItemGroup[] = [];
  let step: ItemGroup | undefined;
  let pending: Item[] = [];
  for (const item of items) {
    const type = item.type ?? 'message';
    if (!isHistoryItem(item)) {
      if (step) step.items.push(item);
      else pending.push(item);
      continue;
    }
    if (MODEL_ITEMS.has(String(type)) || (type === 'message' && item.role === 'assistant')) {
      if (!step) groups.push((step = { kind: 'model', items: pending }));
      pending = [];
      step.items.push(item);
      continue;
    }
    step = undefined;
    const kind = type === 'function_call_output' || type === 'custom_tool_call_output' ? 'output' : 'message';
    const last = groups.at(-1);
    if (last) last.items.push(...pending);
    groups.push({ kind, items: last ? [item] : [...pending, item] });
    pending = [];
  }
  groups.at(-1)?.items.push(...pending);
  return groups;
}

/** Whether `message` is what `group` made: the same role, the same call ids. */
function madeBy(message: CanonicalMessage, group: ItemGroup): boolean {
  if (group.kind === 'model') {
    const calls = group.items.filter((item) => CALL_ITEMS.has(String(item.type))).map((item) => item.call_id ?? item.id);
    return message.role === 'assistant' && JSON.stringify((message.toolCalls ?? []).map((call) => call.id)) === JSON.stringify(calls);
  }
  const read = group.items.find(isHistoryItem)!;
  if (group.kind === 'output') return message.role === 'tool' && message.toolCallId === read.call_id;
  return message.role === (read.role === 'user' ? 'user' : 'system');
}

/** A canonical message Strata made or changed, as Responses input items. */
export function toResponsesItems(message: CanonicalMessage): Item[] {
  if (message.role === 'system') return [{ type: 'message', role: 'system', content: message.content }];
  if (message.role === 'tool') return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
  if (message.role === 'user') {
    const media = (message.media ?? []).flatMap((part): Item[] => {
      const url = part.url ?? (part.data === undefined ? undefined : `data:${part.mediaType};base64,${part.data}`);
      if (url === undefined) return [];
      return part.type === 'image' ? [{ type: 'input_image', image_url: url, detail: 'auto' }] : [{ type: 'input_file', file_data: url, filename: part.filename ?? 'file' }];
    });
    return [{ type: 'message', role: 'user', content: media.length === 0 ? message.content : [{ type: 'input_text', text: message.content }, ...media] }];
  }
  const items: Item[] = [];
  for (const part of message.reasoning ?? []) {
    // Reasoning goes back only with the encrypted content the upstream made; its text alone is not accepted as input.
    const openai = part.providerMetadata?.openai as { reasoningEncryptedContent?: unknown; itemId?: unknown } | undefined;
    if (typeof openai?.reasoningEncryptedContent !== 'string') continue;
    items.push({ type: 'reasoning', ...(typeof openai.itemId === 'string' ? { id: openai.itemId } : {}), summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }], encrypted_content: openai.reasoningEncryptedContent });
  }
  if (message.content !== '') items.push({ type: 'message', role: 'assistant', content: message.content });
  for (const call of message.toolCalls ?? []) {
    items.push(typeof call.input === 'string' ? { type: 'custom_tool_call', call_id: call.id, name: call.name, input: call.input } : { type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.input) });
  }
  return items;
}

/** A request the gateway sends upstream as it came, and why: it names items or state stored upstream that the gateway cannot read. */
export interface ResponsesPassThrough {
  readonly passThrough: string;
  readonly reason: 'previous_response_id' | 'conversation' | 'item_reference';
}

/**
 * The client's request as the loop reads one: `input` as the `messages`
 * (a string is one user message), each `item_reference` replaced in place by
 * the item it names where `returned` has it (an item the gateway returned),
 * every other field as it came; or the 400 to answer. A request whose
 * history the gateway cannot read whole (`previous_response_id` or
 * `conversation`, state stored upstream; a reference to an item the gateway
 * did not return, in any process over its store) is passed through: the upstream, which stored them,
 * answers it.
 */
export async function responsesRequest(c: GatewayRequest, returned: (id: string) => Promise<Item | undefined>): Promise<GatewayRequest | ResponsesPassThrough | Response> {
  const raw = c.req.raw;
  let body: unknown;
  try {
    body = JSON.parse(await raw.text());
  } catch {
    return RESPONSES_WIRE.error(400, 'the request body is not JSON');
  }
  if (!isItem(body)) return RESPONSES_WIRE.error(400, 'the request body must be a JSON object');
  const passThrough = (reason: ResponsesPassThrough['reason']): ResponsesPassThrough => ({ passThrough: JSON.stringify(body), reason });
  for (const field of ['previous_response_id', 'conversation'] as const) if (body[field] !== undefined && body[field] !== null) return passThrough(field);
  const { input, ...fields } = body;
  let messages: unknown[];
  if (typeof input === 'string') messages = [{ type: 'message', role: 'user', content: input }];
  else if (Array.isArray(input) && input.every(isItem)) {
    const resolved: Array<Item | undefined> = [];
    for (const item of input) resolved.push(item.type === 'item_reference' && typeof item.id === 'string' ? await returned(item.id) : item);
    if (resolved.some((item) => item === undefined)) return passThrough('item_reference');
    messages = resolved;
  } else return RESPONSES_WIRE.error(400, 'input: a string or an array of input item objects is required');
  if (typeof fields.instructions !== 'string' && fields.instructions !== undefined && fields.instructions !== null) return RESPONSES_WIRE.error(400, 'instructions: a string is required when given');
  const request = new Request(raw.url, { method: 'POST', headers: raw.headers, body: JSON.stringify({ ...fields, messages }), signal: raw.signal });
  return { req: { raw: request, header: (name) => c.req.header(name) } };
}

type OutputItem = { type?: unknown; id?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown; content?: unknown; summary?: unknown; [field: string]: unknown };
const outputOf = (completion: Record<string, unknown>): OutputItem[] => (Array.isArray(completion.output) ? (completion.output as OutputItem[]).filter(isItem) : []);

function parseArguments(text: unknown): JsonValue {
  try {
    return JSON.parse(typeof text === 'string' ? text : '{}') as JsonValue;
  } catch {
    return {};
  }
}

const isRead = (item: OutputItem | Item, readName: string): boolean => item.type === 'function_call' && item.name === readName;

/** One Responses event to the client, numbered in its stream. */
function send(client: ClientStream, data: Record<string, unknown>): void {
  client.send(String(data.type), { ...data, sequence_number: client.sequence++ });
}

/**
 * The items passed through (not read into the history) of each step or
 * output group, by the calls of that group (`model <call id>`, `output
 * <call id>`): those before its last read item and those after it. A group
 * without a call (a user message) has none here: a message Strata changes
 * there is converted alone.
 */
function passedItemsByCall(items: readonly Item[]): Map<string, { before: Item[]; after: Item[] }> {
  const byCall = new Map<string, { before: Item[]; after: Item[] }>();
  for (const group of itemGroups(items.filter(isItem))) {
    const last = group.items.findLastIndex(isHistoryItem);
    const passed = { before: group.items.slice(0, last).filter((item) => !isHistoryItem(item)), after: group.items.slice(last + 1) };
    if (passed.before.length === 0 && passed.after.length === 0) continue;
    for (const item of group.items) {
      const call = item.type === 'function_call_output' || item.type === 'custom_tool_call_output' || CALL_ITEMS.has(String(item.type)) ? (item.call_id ?? item.id) : undefined;
      if (typeof call === 'string') byCall.set(`${group.kind} ${call}`, passed);
    }
  }
  return byCall;
}

function sseText(events: ReadonlyArray<Record<string, unknown>>): string {
  return events.map((data) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

/** `POST /v1/responses` (reached through `responsesRequest`, which puts `input` in `messages`). */
export const RESPONSES_WIRE: Wire = {
  api: 'openai',
  path: '/responses',
  opening: (body) => JSON.stringify(body.instructions ?? null),
  import(body, messages) {
    const items = messages as readonly Item[];
    const canonical = fromResponsesInput(items);
    const opening: ImportedMessage<ChatMessage | null>[] = typeof body.instructions === 'string' && body.instructions !== '' ? [{ message: { role: 'system', content: body.instructions }, origin: INSTRUCTIONS }] : [];
    const groups = itemGroups(items);
    // Each message keeps the items it was made from while they line up one to one; otherwise every message is converted anew.
    const lined = groups.length === canonical.length && canonical.every((message, index) => madeBy(message, groups[index]!));
    return [...opening, ...canonical.map((message, index) => ({ message, origin: lined ? { items: groups[index]!.items } : null }))];
  },
  upstreamBody(body, messages) {
    const { stream: _stream, stream_options: _streamOptions, messages: _messages, ...rest } = body;
    const kept = messages.some(({ origin }) => origin === INSTRUCTIONS);
    let instructions = body.instructions;
    const input: Item[] = [];
    // Grouped again only when a message Strata changed needs its client items (most requests change none).
    let passedBeside: Map<string, { before: Item[]; after: Item[] }> | undefined;
    messages.forEach(({ message, origin }, index) => {
      if (origin === INSTRUCTIONS) return;
      if (origin && Array.isArray(origin.items)) input.push(...(origin.items as Item[]));
      // The opening Strata changed (its own system prompt) takes the place of the client's instructions.
      else if (!kept && index === 0 && message.role === 'system' && typeof body.instructions === 'string') instructions = message.content;
      else {
        // A step or output Strata changed (a masked output) keeps the client's items that went with it, before and after it as they came.
        const calls = message.role === 'tool' ? [`output ${message.toolCallId}`] : message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => `model ${call.id}`) : [];
        if (calls.length > 0) passedBeside ??= passedItemsByCall(Array.isArray(body.messages) ? (body.messages as Item[]) : []);
        const passed = calls.map((call) => passedBeside!.get(call)).find((found) => found !== undefined);
        for (const call of calls) passedBeside!.delete(call);
        input.push(...(passed?.before ?? []), ...toResponsesItems(message), ...(passed?.after ?? []));
      }
    });
    return { ...rest, ...(instructions === undefined ? {} : { instructions }), input };
  },
  toolSchemas: (tools) => tools.flatMap((tool): ToolSchema[] => {
    const entry = tool as { type?: unknown; name?: unknown; description?: unknown; parameters?: unknown } | null;
    if (entry?.type !== 'function' || typeof entry.name !== 'string') return [];
    return [{ name: entry.name, description: typeof entry.description === 'string' ? entry.description : undefined, parameters: (isItem(entry.parameters) ? entry.parameters : {}) as Record<string, unknown> }];
  }),
  toolName: (tool) => ((tool as { type?: unknown } | null)?.type === 'function' ? (tool as { name?: unknown }).name : undefined),
  toolEntry: (tool) => ({ type: 'function', name: tool.name, description: tool.description ?? '', parameters: tool.parameters, strict: false }),
  upstreamTools(clientTools, read) {
    return sameApiTools(this, clientTools, read);
  },
  headers: (incoming, apiKey) => OPENAI_WIRE.headers(incoming, apiKey),
  usage(completion) {
    const usage = completion.usage as { input_tokens?: unknown; output_tokens?: unknown; input_tokens_details?: { cached_tokens?: unknown } } | undefined;
    return { inputTokens: usage?.input_tokens, outputTokens: usage?.output_tokens, cachedInputTokens: usage?.input_tokens_details?.cached_tokens };
  },
  calls(completion, readName) {
    const calls = outputOf(completion).filter((item) => item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'local_shell_call');
    const reads = calls.filter((item) => item.type === 'function_call' && item.name === readName).map((item) => ({ id: typeof item.call_id === 'string' ? item.call_id : '', input: parseArguments(item.arguments) }));
    return { reads, total: calls.length };
  },
  round: (completion, answers) => [...outputOf(completion), ...answers.map(({ id, content }) => ({ type: 'function_call_output', call_id: id, output: content }))],
  withoutReads: (completion, readName) => ({ ...completion, output: outputOf(completion).filter((item) => !isRead(item, readName)) }),
  /** The read calls alone: the answer's reasoning stays with the client's calls (one reasoning item never goes upstream twice). */
  readsOnly: (completion, readName) => ({ ...completion, output: outputOf(completion).filter((item) => isRead(item, readName)) }),
  streamFields: () => ({ stream: true }),
  /**
   * The Responses stream's events forwarded as they arrive, renumbered
   * (`output_index` without the gateway's own calls, `sequence_number`
   * across the request's upstream answers); a later answer of the same
   * request continues the client's response (one `response.created`). A
   * reasoning item is held until the answer shows it is not the gateway's
   * alone: a client item after it, or the answer's end without a read call;
   * else it stays in the read round. The end (`response.completed`) is held.
   */
  async forward(events, readName, client) {
    const opening = !client.opened;
    let response: Record<string, unknown> = {};
    const output: OutputItem[] = [];
    // The client's output_index of each upstream one; null for the gateway's own calls.
    const shownAt = new Map<number, number | null>();
    let held: Array<{ index: number; events: Array<Record<string, unknown>> }> = [];
    let own = false;
    const show = (index: number, data: Record<string, unknown>) => {
      const at = shownAt.get(index);
      if (at === null || at === undefined) return;
      if (data.type === 'response.output_item.done') client.items[at] = data.item;
      send(client, { ...data, output_index: at });
    };
    const flush = () => {
      for (const item of held) {
        shownAt.set(item.index, client.nextIndex++);
        for (const data of item.events) show(item.index, data);
      }
      held = [];
    };
    for await (const event of events) {
      const data = eventData(event);
      if (data === undefined) continue;
      const type = String(data.type ?? event.event);
      const index = typeof data.output_index === 'number' ? data.output_index : undefined;
      if (type === 'response.created' || type === 'response.in_progress') {
        if (isItem(data.response)) response = { ...response, ...data.response };
        if (opening) send(client, data);
        client.opened = true;
      } else if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
        if (isItem(data.response)) response = { ...data.response };
      } else if (index === undefined) send(client, data);
      else {
        if (type === 'response.output_item.added' && !shownAt.has(index) && !held.some((item) => item.index === index)) {
          const item = isItem(data.item) ? data.item : {};
          if (isRead(item, readName)) {
            own = true;
            shownAt.set(index, null);
          } else if (item.type === 'reasoning') held.push({ index, events: [] });
          else {
            flush();
            shownAt.set(index, client.nextIndex++);
          }
        }
        if (type === 'response.output_item.done' && isItem(data.item)) output[index] = data.item;
        const holding = held.find((item) => item.index === index);
        if (holding) holding.events.push(data);
        else show(index, data);
      }
    }
    if (!own) flush();
    // The completed response's output as the upstream gave it; else the items the events finished.
    const items = outputOf(response).length > 0 ? outputOf(response) : output.filter((item) => item !== undefined);
    return { ...response, output: items };
  },
  /** Ends the client's response: `response.completed` (or incomplete, failed) with every item the client was shown as its output. */
  finish(shown, client) {
    const output = client.items.length > 0 ? client.items.filter((item) => item !== undefined) : outputOf(shown);
    const response = { ...shown, output };
    if (!client.opened) {
      const started = { ...shown, status: 'in_progress', output: [], usage: null };
      send(client, { type: 'response.created', response: started });
      send(client, { type: 'response.in_progress', response: started });
      client.opened = true;
    }
    send(client, { type: shown.status === 'incomplete' ? 'response.incomplete' : shown.status === 'failed' ? 'response.failed' : 'response.completed', response });
  },
  /** The finished response as the Responses stream's events: created, each item added, its text or arguments in one delta, done; then completed. */
  stream(completion, headers) {
    let sequence = 0;
    const events: Array<Record<string, unknown>> = [];
    const emit = (type: string, data: Record<string, unknown>) => events.push({ type, sequence_number: sequence++, ...data });
    const started = { ...completion, status: 'in_progress', output: [], usage: null };
    emit('response.created', { response: started });
    emit('response.in_progress', { response: started });
    outputOf(completion).forEach((raw, output_index) => {
      const item = typeof raw.id === 'string' ? raw : { ...raw, id: `item_${output_index}` };
      const item_id = item.id;
      if (item.type === 'message' && Array.isArray(item.content)) {
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        (item.content as Array<Record<string, unknown>>).forEach((part, content_index) => {
          const where = { item_id, output_index, content_index };
          if (part.type === 'output_text') {
            emit('response.content_part.added', { ...where, part: { ...part, text: '' } });
            emit('response.output_text.delta', { ...where, delta: part.text, logprobs: [] });
            emit('response.output_text.done', { ...where, text: part.text, logprobs: [] });
          } else if (part.type === 'refusal') {
            emit('response.content_part.added', { ...where, part: { ...part, refusal: '' } });
            emit('response.refusal.delta', { ...where, delta: part.refusal });
            emit('response.refusal.done', { ...where, refusal: part.refusal });
          } else emit('response.content_part.added', { ...where, part });
          emit('response.content_part.done', { ...where, part });
        });
      } else if (item.type === 'function_call') {
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        emit('response.function_call_arguments.delta', { item_id, output_index, delta: item.arguments });
        emit('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: item.arguments });
      } else if (item.type === 'reasoning' && Array.isArray(item.summary)) {
        emit('response.output_item.added', { output_index, item: { ...item, summary: [] } });
        (item.summary as Array<Record<string, unknown>>).forEach((part, summary_index) => {
          const where = { item_id, output_index, summary_index };
          emit('response.reasoning_summary_part.added', { ...where, part: { ...part, text: '' } });
          emit('response.reasoning_summary_text.delta', { ...where, delta: part.text });
          emit('response.reasoning_summary_text.done', { ...where, text: part.text });
          emit('response.reasoning_summary_part.done', { ...where, part });
        });
      } else emit('response.output_item.added', { output_index, item });
      emit('response.output_item.done', { output_index, item });
    });
    const end = completion.status === 'incomplete' ? 'response.incomplete' : completion.status === 'failed' ? 'response.failed' : 'response.completed';
    emit(end, { response: completion });
    return new Response(sseText(events), { headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  },
  error: (status, message, code) => OPENAI_WIRE.error(status, message, code),
};
