// The gateway's own time per request: the same chat request sent straight to a
// local fake upstream and through `startGateway` (memory stores) to that
// upstream, at 10 and 500 messages of history. Each sample continues a
// conversation by one tool call and its result (2 messages), as an agent's
// loop does; the direct and the gateway calls take turns. The gateway's time
// is the difference of the two at p50 and p99 (wall clock, what a client
// waits), and the CPU time of this process per request (client, upstream and
// gateway all run here, so the difference is the gateway's).
//
// Then the cache-priced cost of one scripted 30-step loop (real 2-9 KB tool
// outputs, a 24,000-token window) through the gateway against the same loop
// through @strata/ai-sdk in process: each request's messages as OpenAI chat
// JSON, the prefix it shares by bytes with the request before it priced at
// 0.1 (cached input), the rest at 1, both counted by o200k.
import { createServer, type Server } from 'node:http';
import { CACHE_PRICING, exactTokenEstimatorFor, fromOpenAIChat, toOpenAIChat, type CanonicalMessage } from '@strata/context';
import { startGateway } from '@strata/gateway';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { strataRequests } from './ai-sdk-loop.bench.js';
import type { BenchOptions, BenchResult, BenchTarget } from './bench-result.js';
import { LOOP_BUDGET_TOKENS, LOOP_STEPS, LOOP_SYSTEM, LOOP_TASK, loopToolOutputs } from './host-loop-measure.js';
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

/**
 * The loop's scripted model behind an OpenAI chat upstream, as ai-sdk-loop.bench.ts's: step n (1..29) says
 * "Reading output n." and calls `read_output` with `{ index: n }`; step 30 answers. Records each request's messages.
 */
function loopUpstream(): { server: Server; requests: CanonicalMessage[][]; chats: unknown[][] } {
  const requests: CanonicalMessage[][] = [];
  const chats: unknown[][] = [];
  const server = createServer(async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw) as { messages: unknown[] };
    chats.push(body.messages);
    requests.push(fromOpenAIChat(body.messages as never));
    const step = requests.length;
    const message = step >= LOOP_STEPS
      ? { role: 'assistant', content: 'Listed.' }
      : { role: 'assistant', content: `Reading output ${step}.`, tool_calls: [{ id: `call-${step}`, type: 'function', function: { name: 'read_output', arguments: JSON.stringify({ index: step }) } }] };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `chatcmpl-${step}`, object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: step >= LOOP_STEPS ? 'stop' : 'tool_calls' }], usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } }));
  });
  return { server, requests, chats };
}

/** The loop through the gateway: the client sends its whole history each step and runs `read_output` itself. */
async function gatewayLoopRequests(outputs: readonly string[]): Promise<{ requests: CanonicalMessage[][]; chats: unknown[][] }> {
  const upstream = loopUpstream();
  await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
  const address = upstream.server.address();
  const gateway = await startGateway({ upstream: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`, windowTokens: LOOP_BUDGET_TOKENS, store: 'memory:', port: 0 });
  try {
    const readOutput = { type: 'function', function: { name: 'read_output', description: 'Reads the next tool output by its index.', parameters: { type: 'object', properties: { index: { type: 'integer' } }, required: ['index'], additionalProperties: false } } };
    const history: Message[] = [{ role: 'system', content: LOOP_SYSTEM }, { role: 'user', content: LOOP_TASK }];
    for (let step = 0; step < LOOP_STEPS; step += 1) {
      const response = await fetch(`${gateway.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer key' }, body: JSON.stringify({ model: 'm', messages: history, tools: [readOutput] }) });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      const message = ((await response.json()) as { choices: Array<{ message: Message & { tool_calls?: Array<{ id: string; function: { arguments: string } }> } }> }).choices[0]!.message;
      const { refusal: _refusal, ...kept } = message;
      history.push(kept);
      if (!message.tool_calls) break;
      for (const call of message.tool_calls) history.push({ role: 'tool', tool_call_id: call.id, content: outputs[((JSON.parse(call.function.arguments) as { index: number }).index - 1) % outputs.length]! });
    }
  } finally {
    await gateway.close();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
  }
  return upstream;
}

const exact = exactTokenEstimatorFor('o200k_base');

/** A loop's input cost: each request's messages as OpenAI chat JSON, the byte prefix shared with the request before it at 0.1, the rest at 1 (o200k tokens). */
function cachePricedCost(requests: readonly (readonly CanonicalMessage[])[]): { cost: number; tokens: number; cachedShare: number } {
  let cost = 0;
  let tokens = 0;
  let cached = 0;
  let previous = '';
  for (const messages of requests) {
    const text = JSON.stringify(toOpenAIChat(messages));
    let shared = 0;
    while (shared < text.length && shared < previous.length && text.charCodeAt(shared) === previous.charCodeAt(shared)) shared += 1;
    const whole = exact.countText(text);
    const prefix = shared === 0 ? 0 : Math.min(whole, exact.countText(text.slice(0, shared)));
    cost += prefix * CACHE_PRICING.cachedToken + (whole - prefix) * CACHE_PRICING.newToken;
    tokens += whole;
    cached += prefix;
    previous = text;
  }
  return { cost: Math.round(cost), tokens, cachedShare: tokens === 0 ? 0 : cached / tokens };
}

/** The cost comparison's table row per path and its target (within 2%). */
async function loopCost(rules: ProviderRules | undefined): Promise<{ rows: Array<Record<string, number | string>>; target: BenchTarget } | undefined> {
  const outputs = loopToolOutputs();
  if (!outputs) return undefined;
  const through = await gatewayLoopRequests(outputs);
  const inProcess = (await strataRequests(outputs, false)).map((request) => request.canonical);
  const violations = through.chats.filter((chat) => rules !== undefined && (rules.violations(chat, 'openai').length > 0 || rules.violations(chat, 'anthropic').length > 0)).length;
  const gateway = cachePricedCost(through.requests);
  const adapter = cachePricedCost(inProcess);
  const ratio = gateway.cost / Math.max(1, adapter.cost);
  const row = (path: string, requests: number, measured: ReturnType<typeof cachePricedCost>) => ({ path, requests, 'input tokens': measured.tokens, 'cached share': measured.cachedShare.toFixed(3), 'cache-priced cost': measured.cost });
  return {
    rows: [row('through the gateway', through.requests.length, gateway), row('@strata/ai-sdk prepareStep (in process)', inProcess.length, adapter), { path: 'gateway / in-process', requests: violations, 'input tokens': '-', 'cached share': '-', 'cache-priced cost': ratio.toFixed(4) }],
    target: { name: 'the same loop\'s cache-priced cost through the gateway is within 2% of the in-process adapter', measured: `${ratio.toFixed(4)}x (${gateway.cost} against ${adapter.cost}); gateway requests breaking the provider rules: ${rules ? violations : 'not checked (../shared absent)'}`, met: Math.abs(ratio - 1) <= 0.02 && violations === 0 },
  };
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
  const cost = await loopCost(await loadProviderRules());
  return {
    title: TITLE,
    method: `${CONVERSATIONS} conversations per history size, each continued ${samples} times by one tool call and its ~1 KB result; each continuation sent straight to a local fake OpenAI upstream and through startGateway (memory stores, a 200,000-token window) to it, in turns; wall clock per request, and this process's CPU time (client, upstream and gateway all in it).`,
    tables: [
      { title: 'Per request: straight to the upstream against through the gateway', rows },
      ...(cost ? [{ title: `Cache-priced input cost of one ${LOOP_STEPS}-step loop at ${LOOP_BUDGET_TOKENS} tokens: through the gateway against @strata/ai-sdk in process (last row: the ratio; its "requests" the gateway requests breaking the provider rules)`, rows: cost.rows }] : []),
    ],
    targets: cost ? [cost.target] : [],
    notes: [
      `Cost: each request's messages as OpenAI chat JSON; the bytes it shares at its start with the request before it are priced at ${CACHE_PRICING.cachedToken} (cached input), the rest at ${CACHE_PRICING.newToken}, tokens by o200k; tools left out (the two paths' client tools differ by name only). ${cost ? '' : 'Not measured: ../shared is absent.'}`,
      'The overhead is the gateway\'s own work: reading the request, matching the history with the stored context, assembling the window, the session store and the second HTTP hop on loopback.',
    ],
  };
}
