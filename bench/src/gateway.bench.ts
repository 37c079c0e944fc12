// The gateway's own time per request: the same chat request sent straight to a
// local fake upstream and through `startGateway` (memory stores) to that
// upstream, at 10 and 500 messages of history. Each sample continues a
// conversation by one tool call and its result (2 messages), as an agent's
// loop does; the direct and the gateway calls take turns. The gateway's time
// is the difference of the two at p50 and p99 (wall clock, what a client
// waits), and the CPU time of this process per request (client, upstream and
// gateway all run here, so the difference is the gateway's).
import { createServer, type Server } from 'node:http';
import { startGateway } from '@strata/gateway';
import type { BenchOptions, BenchResult } from './bench-result.js';
import { collectGarbage, percentile } from './measure.js';

const TITLE = "Gateway overhead: a chat request through strata gateway against the same request straight to the upstream";
const LEVELS = [10, 500] as const;
const CONVERSATIONS = 10;

type Message = Record<string, unknown>;

/** An OpenAI chat upstream that answers at once with one tool call. */
function fakeUpstream(): Server {
  return createServer((request, response) => {
    let size = 0;
    request.on('data', (chunk: Buffer) => (size += chunk.length));
    request.on('end', () => {
      const message = { role: 'assistant', content: null, tool_calls: [{ id: `call-${size}`, type: 'function', function: { name: 'run_step', arguments: '{"step":1}' } }] };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } }));
    });
  });
}

/** A tool result of about 1 KB, different per conversation and step. */
const output = (conversation: number, step: number) => Array.from({ length: 16 }, (_, line) => `c${conversation} s${step} line ${line}: src/module_${(step * 7 + line) % 13}.py:${line * 3 + 1}: def handler_${line}(value): return value * ${step}`).join('\n');

/** A conversation of `messages` messages: the system and task, then tool calls and their results. */
function history(conversation: number, messages: number): Message[] {
  const result: Message[] = [{ role: 'system', content: 'You are a careful maintainer.' }, { role: 'user', content: `Task ${conversation}: find the failing handler.` }];
  for (let step = 0; result.length < messages; step += 1) {
    result.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${conversation}-${step}`, type: 'function', function: { name: 'run_step', arguments: `{"step":${step}}` } }] });
    result.push({ role: 'tool', tool_call_id: `c${conversation}-${step}`, content: output(conversation, step) });
  }
  return result.slice(0, messages);
}

const tools = [{ type: 'function', function: { name: 'run_step', description: 'Runs one step.', parameters: { type: 'object', properties: { step: { type: 'integer' } } } } }];

async function post(url: string, conversation: number, messages: readonly Message[]): Promise<void> {
  const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer key', 'x-strata-session': `bench-${conversation}` }, body: JSON.stringify({ model: 'm', messages, tools }) });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const samples = options.size === 'smoke' ? 3 : 20;
  const upstream = fakeUpstream();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const address = upstream.address();
  const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: 200_000, store: 'memory:', port: 0 });
  const rows: Array<Record<string, number | string>> = [];
  try {
    for (const level of LEVELS) {
      const conversations = Array.from({ length: CONVERSATIONS }, (_, conversation) => history(level * 1_000 + conversation, level));
      // The first request of each conversation imports its whole history: not what a continuing loop pays, so not measured.
      for (const [conversation, messages] of conversations.entries()) await post(gateway.url, level * 1_000 + conversation, messages);
      collectGarbage();
      const wall = { direct: [] as number[], gateway: [] as number[] };
      const cpu = { direct: 0, gateway: 0 };
      for (let sample = 0; sample < samples; sample += 1) {
        for (const [conversation, messages] of conversations.entries()) {
          const id = level * 1_000 + conversation;
          messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `n${id}-${sample}`, type: 'function', function: { name: 'run_step', arguments: `{"step":${sample}}` } }] });
          messages.push({ role: 'tool', tool_call_id: `n${id}-${sample}`, content: output(id, 1_000 + sample) });
          // Turns swapped every sample, so neither always runs first.
          for (const where of sample % 2 === 0 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
            const started = performance.now();
            const cpuStart = process.cpuUsage();
            await post(where === 'direct' ? upstreamUrl : gateway.url, id, messages);
            const used = process.cpuUsage(cpuStart);
            cpu[where] += (used.user + used.system) / 1_000;
            wall[where].push(performance.now() - started);
          }
        }
      }
      const count = samples * CONVERSATIONS;
      const round = (value: number) => Math.round(value * 100) / 100;
      rows.push({
        'history (messages)': `${level}-${level + 2 * samples}`,
        requests: count,
        'direct p50 ms': round(percentile(wall.direct, 0.5)),
        'gateway p50 ms': round(percentile(wall.gateway, 0.5)),
        'overhead p50 ms': round(percentile(wall.gateway, 0.5) - percentile(wall.direct, 0.5)),
        'direct p99 ms': round(percentile(wall.direct, 0.99)),
        'gateway p99 ms': round(percentile(wall.gateway, 0.99)),
        'overhead p99 ms': round(percentile(wall.gateway, 0.99) - percentile(wall.direct, 0.99)),
        'overhead CPU ms/request': round((cpu.gateway - cpu.direct) / count),
      });
    }
  } finally {
    await gateway.close();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  }
  return {
    title: TITLE,
    method: `${CONVERSATIONS} conversations per history size, each continued ${samples} times by one tool call and its ~1 KB result; each continuation sent straight to a local fake OpenAI upstream and through startGateway (memory stores, a 200,000-token window) to it, in turns; wall clock per request, and this process's CPU time (client, upstream and gateway all in it).`,
    tables: [{ title: 'Per request: straight to the upstream against through the gateway', rows }],
    targets: [],
    notes: ['The overhead is the gateway\'s own work: reading the request, matching the history with the stored context, assembling the window, the session store and the second HTTP hop on loopback.'],
  };
}
