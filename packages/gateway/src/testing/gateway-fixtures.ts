// What the gateway's tests share: recorded outputs, the loop's size, a local server's base URL.
import { createServer, type Server, type ServerResponse } from 'node:http';
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

export type UpstreamBody = { messages: Array<Record<string, any>>; stream?: boolean; stream_options?: { include_usage?: boolean }; system?: unknown; [field: string]: unknown };
/** What a scripted upstream answers: the request's body and number give the answer (a chat completion or a message). */
export type Script = (body: UpstreamBody, index: number) => Record<string, any>;

/** A local upstream that answers each request with its script's answer (per request; `scriptedUpstream` in scripted-upstream.ts runs a whole tool loop), streamed when the request asks (each event in its own write). */
export function answeringUpstream(api: 'openai' | 'anthropic', script: Script, before?: (request: number, event: number) => Promise<void>): { server: Server; requests: UpstreamBody[] } {
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
    await writeEvents(response, api === 'openai' ? openAIEvents(answer, body.stream_options?.include_usage === true) : anthropicEvents(answer), before && ((event) => before(index, event)));
  });
  return { server, requests };
}

