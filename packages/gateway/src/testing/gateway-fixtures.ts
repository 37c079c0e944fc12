// What the gateway's tests share: recorded outputs, the loop's size, a local server's base URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { readSharedData } from '@strata/testing';

export const STEPS = 30;
export const WINDOW = 24_000;

/** Real recorded text (a SWE-agent trajectory of marshmallow), cut into outputs of 2-9 KB on line ends. */
export function recordedOutputs(): string[] | undefined {
  const text = readSharedData('swe-agent/marshmallow-1867.function_calling_replace_from_source.traj');
  if (text === undefined) return undefined;
  const trajectory = JSON.parse(text) as { history: Array<{ content?: unknown }> };
  const corpus = trajectory.history.map((entry) => (typeof entry.content === 'string' ? entry.content : JSON.stringify(entry.content))).join('\n');
  const outputs: string[] = [];
  let offset = 0;
  for (let step = 0; step < STEPS; step += 1) {
    const size = 2_048 + ((step * 2_731) % 7_169);
    let end = corpus.indexOf('\n', offset + size);
    if (end < 0 || end - offset > 9_216) end = offset + size;
    outputs.push(corpus.slice(offset, end));
    offset = end % (corpus.length - 10_000);
  }
  return outputs;
}

/** Listens on a free port of 127.0.0.1; resolves to the server's `/v1` base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
}

/**
 * A finished chat completion as the chat API streams it: the role, the text in
 * pieces, each tool call opened with its id and name then its arguments in
 * pieces, the finish reason, the usage chunk (when asked) and `[DONE]`.
 */
export function openAIEvents(completion: Record<string, any>, includeUsage: boolean): string[] {
  const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model };
  const message = completion.choices[0].message as Record<string, any>;
  const chunk = (delta: unknown, finish: unknown = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(message.content ?? '')) events.push(chunk({ content: piece }));
  (message.tool_calls ?? []).forEach((call: Record<string, any>, index: number) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of pieces(call.function.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, completion.choices[0].finish_reason));
  if (includeUsage) events.push(`data: ${JSON.stringify({ ...base, choices: [], usage: completion.usage })}\n\n`);
  events.push('data: [DONE]\n\n');
  return events;
}

/** A finished message as the messages API streams it: message_start, each block started, its deltas in pieces, stopped; message_delta, message_stop. */
export function anthropicEvents(message: Record<string, any>): string[] {
  const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const { content, usage, ...rest } = message;
  const events = [event('message_start', { type: 'message_start', message: { ...rest, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }), event('ping', { type: 'ping' })];
  (content as Array<Record<string, any>>).forEach((block, index) => {
    const delta = (value: unknown) => events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: value }));
    if (block.type === 'text') {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const piece of pieces(block.text)) delta({ type: 'text_delta', text: piece });
    } else if (block.type === 'tool_use') {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
      for (const piece of pieces(JSON.stringify(block.input))) delta({ type: 'input_json_delta', partial_json: piece });
    } else if (block.type === 'thinking') {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const piece of pieces(block.thinking)) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: block.signature });
    } else events.push(event('content_block_start', { type: 'content_block_start', index, content_block: block }));
    events.push(event('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(event('message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(event('message_stop', { type: 'message_stop' }));
  return events;
}

/**
 * A finished response as the Responses API streams it: created, in_progress,
 * each item added, its text, summary or arguments in pieces, done; then
 * completed with the whole response. Sequence numbers from 0.
 */
export function responsesEvents(response: Record<string, any>): string[] {
  let sequence = 0;
  const events: string[] = [];
  const event = (type: string, data: Record<string, unknown>) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  const started = { ...response, status: 'in_progress', output: [], usage: null };
  event('response.created', { response: started });
  event('response.in_progress', { response: started });
  (response.output as Array<Record<string, any>>).forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === 'message') {
      event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      (item.content as Array<Record<string, any>>).forEach((part, content_index) => {
        const where = { item_id, output_index, content_index };
        event('response.content_part.added', { ...where, part: { ...part, text: '' } });
        for (const piece of pieces(part.text)) event('response.output_text.delta', { ...where, delta: piece, logprobs: [] });
        event('response.output_text.done', { ...where, text: part.text, logprobs: [] });
        event('response.content_part.done', { ...where, part });
      });
    } else if (item.type === 'function_call') {
      event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const piece of pieces(item.arguments)) event('response.function_call_arguments.delta', { item_id, output_index, delta: piece });
      event('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
    } else if (item.type === 'reasoning') {
      event('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      (item.summary as Array<Record<string, any>>).forEach((part, summary_index) => {
        const where = { item_id, output_index, summary_index };
        event('response.reasoning_summary_part.added', { ...where, part: { ...part, text: '' } });
        for (const piece of pieces(part.text)) event('response.reasoning_summary_text.delta', { ...where, delta: piece });
        event('response.reasoning_summary_text.done', { ...where, text: part.text });
        event('response.reasoning_summary_part.done', { ...where, part });
      });
    } else event('response.output_item.added', { output_index, item });
    event('response.output_item.done', { output_index, item });
  });
  event('response.completed', { response });
  return events;
}

/** Text in pieces of at most 7 characters (what a provider's deltas look like). */
function pieces(text: string): string[] {
  const result: string[] = [];
  for (let offset = 0; offset < text.length; offset += 7) result.push(text.slice(offset, offset + 7));
  return result;
}

/** Writes events one by one, each in its own write (a real stream's pace, without a timer). */
export async function writeEvents(response: import('node:http').ServerResponse, events: readonly string[], before?: (index: number) => Promise<void>): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const [index, text] of events.entries()) {
    await before?.(index);
    await new Promise<void>((resolve) => response.write(text, () => resolve()));
  }
  response.end();
}

export type UpstreamBody = { messages: Array<Record<string, any>>; input?: Array<Record<string, any>>; stream?: boolean; stream_options?: { include_usage?: boolean }; system?: unknown; [field: string]: unknown };
/** What a scripted upstream answers: the request's body and number give the answer (a chat completion or a message). */
export type Script = (body: UpstreamBody, index: number) => Record<string, any>;

/** A local upstream that answers each request with its script's answer (per request; `scriptedUpstream` in scripted-upstream.ts runs a whole tool loop), streamed when the request asks (each event in its own write). */
export function answeringUpstream(api: 'openai' | 'anthropic' | 'responses', script: Script, before?: (request: number, event: number) => Promise<void>): { server: Server; requests: UpstreamBody[] } {
  const requests: UpstreamBody[] = [];
  const server = createServer(async (request, response: ServerResponse) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw) as UpstreamBody;
    const index = requests.push(body) - 1;
    let answer: Record<string, any>;
    try {
      answer = script(body, index);
    } catch (error) {
      // A script that fails answers 500 with why, so the test fails instead of waiting.
      return void response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
    }
    if (body.stream !== true) return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    const events = api === 'openai' ? openAIEvents(answer, body.stream_options?.include_usage === true) : api === 'responses' ? responsesEvents(answer) : anthropicEvents(answer);
    await writeEvents(response, events, before && ((event) => before(index, event)));
  });
  return { server, requests };
}


const PROCESS_ENTRY = fileURLToPath(new URL('./gateway-process.js', import.meta.url));

/** A gateway in its own process (`gateway-process.ts`) over `store` at `window` tokens, resolved once it prints its URL. */
export async function gatewayProcess(upstream: string, store: string, window: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [PROCESS_ENTRY, upstream, store, String(window)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`gateway process exited with ${code} before it listened`)));
  });
  return { child, url };
}
