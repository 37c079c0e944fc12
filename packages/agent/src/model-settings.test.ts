import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, resolveContextBudget, type ContextDiagnostic, type ContextTraceV5 } from '@strata/context';
import { ModelWindowDiscovery, WINDOW_DISCOVERY_TIMEOUT_MS } from '@strata/model';
import { manualTimers, startChatTestServer, type ChatReply } from '@strata/testing';
import { createAgentRun } from './create-agent-run.js';
import { createDefaultBindings } from './default-bindings.js';
import { resolveModelSettings } from './model-settings.js';

/** A run as `strata run` makes it: bindings from the environment alone (STRATA_MODEL names the local server), a log-reading tool. */
async function defaultRun(env: Record<string, string>, options: { readonly parts: readonly number[]; readonly contextId: string }) {
  const dataDir = await mkdtemp(join(tmpdir(), 'strata-settings-'));
  try {
    const defaults = await createDefaultBindings({ env: { STRATA_DATA_DIR: dataDir, ...env } });
    defaults.bindings.tools.register({
      name: 'read_log',
      description: 'Reads one part of the log.',
      parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] },
      // Part n is n hundred lines.
      execute: (input) => ({ content: Array.from({ length: options.parts[(input as { part: number }).part - 1]! }, (_, line) => `line ${line}: request handled in 12 ms`).join('\n') }),
    });
    const traces: ContextTraceV5[] = [];
    const diagnostics: ContextDiagnostic[] = [];
    const result = await createAgentRun({ id: 'cli' }, defaults.bindings, {
      contextId: options.contextId,
      prompt: 'Read the whole log.',
      onEvent: (event) => {
        if (event.type === 'context-assembled') traces.push(event.trace);
        if (event.type === 'diagnostic') diagnostics.push(event.diagnostic);
      },
    }).execute();
    await defaults.close();
    return { result, traces, diagnostics, defaults };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const windowDiagnostics = (diagnostics: readonly ContextDiagnostic[]) => diagnostics.filter((diagnostic) => diagnostic.code.startsWith('WINDOW_'));

/** Reads parts 1..n, one per call, then says done. */
const readParts = (parts: number) => (call: number): ChatReply => (call <= parts ? { toolCall: { id: `call_${call}`, name: 'read_log', input: { part: call } } } : { text: 'done' });

test('a silently truncating OpenAI-compatible server is detected on the first turn it cuts the prompt, in a run from the default bindings', async () => {
  // The server runs with a 2,000-token window and cuts silently; the user configured 32K. Part 3 is a large dump.
  const server = await startChatTestServer({ wire: 'openai', reply: readParts(3), windowTokens: 2_000, truncate: true });
  try {
    const { result, diagnostics } = await defaultRun(
      { STRATA_MODEL: `openai-compatible:${server.baseURL}#qwen3:8b`, STRATA_MODEL_MAX_TOKENS: '32000', STRATA_MODEL_WINDOW_DISCOVERY: 'off' },
      { parts: [5, 5, 400], contextId: 'truncating' },
    );
    assert.equal(result.stopReason, 'completed', String(result.error ?? ''));
    const firstCut = server.requests.findIndex((request) => request.truncated) + 1;
    assert.equal(firstCut, 4, 'the server cut the prompt first at the call after the large part');
    const low = diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW');
    assert.equal(low[0]?.subject, `turn ${firstCut}`);
    assert.match(low[0]!.message, /may have truncated the prompt/);
    assert.ok(result.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW'), 'it is in the run result too');
  } finally {
    await server.close();
  }
});

test('a server that cuts only a little is detected on the first turn it cuts: its count stops growing while the input grows', async () => {
  // Parts of 20 lines each: the first cut drops only the oldest message or two, far above half of what was sent.
  const server = await startChatTestServer({ wire: 'openai', reply: readParts(12), windowTokens: 1_500, truncate: true });
  try {
    const { result, diagnostics } = await defaultRun(
      { STRATA_MODEL: `openai-compatible:${server.baseURL}#qwen3:8b`, STRATA_MODEL_MAX_TOKENS: '32000', STRATA_MODEL_WINDOW_DISCOVERY: 'off' },
      { parts: Array.from({ length: 12 }, () => 20), contextId: 'cutting-a-little' },
    );
    assert.equal(result.stopReason, 'completed', String(result.error ?? ''));
    const firstCut = server.requests.findIndex((request) => request.truncated);
    assert.ok(firstCut > 0, 'the fixture must make the server cut');
    const cut = server.requests[firstCut]!;
    assert.ok(cut.keptTokens > cut.sentTokens * 0.5, `a small cut (${cut.keptTokens} of ${cut.sentTokens} kept): the share rule alone would not see it`);
    const low = diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW');
    assert.equal(low[0]?.subject, `turn ${firstCut + 1}`, 'said on the first turn the server cut');
    assert.match(low[0]!.message, /while the provider's count went from \d+ to \d+: the server may have truncated the prompt/);
  } finally {
    await server.close();
  }
});

test('window discovery: a vLLM-style /v1/models window reaches the assembled budget; the environment still wins, with a warning when it is larger', async () => {
  const server = await startChatTestServer({ wire: 'openai', reply: readParts(0), models: [{ id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 8_192 }] });
  try {
    const model = `openai-compatible:${server.baseURL}#Qwen/Qwen3-8B`;
    const discovered = await defaultRun({ STRATA_MODEL: model }, { parts: [], contextId: 'vllm' });
    assert.equal(discovered.defaults.configuration.modelMaxTokens, 8_192);
    assert.equal(discovered.traces[0]!.budget!.inputCapTokens, resolveContextBudget({ ...discovered.defaults.configuration }).inputCapTokens);
    assert.equal(discovered.traces[0]!.budget!.inputCapTokens, 8_192 - 2_048, 'the cap is the server window less the output reserve');
    assert.deepEqual(windowDiagnostics(discovered.result.diagnostics), []);

    const configured = await defaultRun({ STRATA_MODEL: model, STRATA_MODEL_MAX_TOKENS: '32000' }, { parts: [], contextId: 'vllm-configured' });
    assert.equal(configured.defaults.configuration.modelMaxTokens, 32_000, 'the environment wins');
    const larger = configured.result.diagnostics.filter((diagnostic) => diagnostic.code === 'WINDOW_LARGER_THAN_SERVER');
    assert.equal(larger.length, 1);
    assert.match(larger[0]!.message, /32000 tokens\) is larger than Qwen\/Qwen3-8B accepts .*8192/);
    // Asked once per process: the second run's bindings took the cached answer.
    assert.equal(server.paths.filter((path) => path === 'GET /v1/models').length, 1);
  } finally {
    await server.close();
  }
});

test("window discovery: Ollama's /api/show (num_ctx, under the model's own length) reaches the assembled budget", async () => {
  const server = await startChatTestServer({
    wire: 'openai',
    reply: readParts(0),
    // Ollama's /v1/models lists the model without a window.
    models: [{ id: 'qwen3:8b', object: 'model', owned_by: 'library' }],
    ollamaShow: { model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40_960 }, parameters: 'temperature 0.6\nnum_ctx 12288' },
  });
  try {
    const { defaults, traces, result } = await defaultRun({ STRATA_MODEL: `openai-compatible:${server.baseURL}#qwen3:8b` }, { parts: [], contextId: 'ollama' });
    assert.equal(defaults.configuration.modelMaxTokens, 12_288);
    assert.equal(traces[0]!.budget!.inputCapTokens, 12_288 - 3_072);
    assert.deepEqual(windowDiagnostics(result.diagnostics), [], 'the failed /v1/models look-up is not reported when /api/show answered');
    assert.ok(server.paths.includes('POST /api/show'));
  } finally {
    await server.close();
  }
});

test('window discovery that times out never breaks the bindings: the configured window stands, said once', async () => {
  // A server that accepts the connection and never answers.
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
  try {
    const { timers, fire, whenPending } = manualTimers();
    const model = { provider: 'openai-compatible', modelId: 'llama3.1:8b', stream: () => (async function* () {})() } as never;
    const discovery = new ModelWindowDiscovery();
    const resolving = resolveModelSettings({ env: { STRATA_MODEL_MAX_TOKENS: '16000' }, model, specifier: `openai-compatible:${baseURL}#llama3.1:8b`, timers, discovery });
    for (let fired = 0; fired < 2; fired += 1) {
      await whenPending();
      assert.equal(fire(WINDOW_DISCOVERY_TIMEOUT_MS), 1);
    }
    const settings = await resolving;
    assert.equal(settings.configuration.modelMaxTokens, 16_000);
    assert.deepEqual(settings.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.severity]), [['WINDOW_DISCOVERY_FAILED', 'info']]);
    assert.match(settings.diagnostics[0]!.message, /the window stays 16000 tokens/);
    // Asked again (a failure is not cached), but not said again.
    const again = resolveModelSettings({ env: { STRATA_MODEL_MAX_TOKENS: '16000' }, model, specifier: `openai-compatible:${baseURL}#llama3.1:8b`, timers, discovery });
    for (let fired = 0; fired < 2; fired += 1) {
      await whenPending();
      fire(WINDOW_DISCOVERY_TIMEOUT_MS);
    }
    assert.deepEqual((await again).diagnostics, []);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('exact counting from the configuration: the settings are checked and named', async () => {
  const model = { provider: 'openai-compatible', modelId: 'qwen3:8b', stream: () => (async function* () {})() } as never;
  const off = { STRATA_MODEL_WINDOW_DISCOVERY: 'off' };
  await assert.rejects(resolveModelSettings({ env: { ...off, STRATA_TOKENIZER_JSON: '/nonexistent/tokenizer.json' }, model }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_TOKENIZER_JSON' && /no tokenizer file/.test(error.message));
  await assert.rejects(
    resolveModelSettings({ env: { ...off, STRATA_PROVIDER_TOKEN_COUNT: 'on' }, model, specifier: 'openai-compatible:http://127.0.0.1:9/v1#qwen3:8b' }),
    (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_PROVIDER_TOKEN_COUNT',
  );
  await assert.rejects(resolveModelSettings({ env: { ...off, STRATA_PROVIDER_TOKEN_COUNT: 'sometimes' }, model }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_PROVIDER_TOKEN_COUNT');
  await assert.rejects(resolveModelSettings({ env: { STRATA_MODEL_WINDOW_DISCOVERY: 'maybe' }, model, specifier: 'openai-compatible:http://127.0.0.1:9/v1#qwen3:8b' }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_MODEL_WINDOW_DISCOVERY');
  const claude = { provider: 'anthropic', modelId: 'claude-sonnet-4-5', stream: () => (async function* () {})() } as never;
  const counted = await resolveModelSettings({ env: { ...off, STRATA_PROVIDER_TOKEN_COUNT: 'on', ANTHROPIC_API_KEY: 'test-key' }, model: claude, specifier: 'anthropic:claude-sonnet-4-5' });
  assert.equal(counted.exactEstimator?.constructor.name, 'ProviderTokenCounter');
  assert.equal(counted.estimator.family, 'claude');
});

test('the Claude target through the Anthropic wire: a provider that counts 1.3x ours has every turn after the first within its window by its own count', async () => {
  const windowTokens = 5_000;
  const server = await startChatTestServer({ wire: 'anthropic', family: 'claude', countRatio: 1.3, reply: readParts(16), anthropicModel: { id: 'claude-sonnet-4-5', type: 'model', max_input_tokens: windowTokens + 1_250 } });
  try {
    const { result, traces, diagnostics, defaults } = await defaultRun(
      { STRATA_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: 'test-key' },
      { parts: Array.from({ length: 16 }, () => 40), contextId: 'claude-wire' },
    );
    assert.equal(result.stopReason, 'completed', String(result.error ?? ''));
    const cap = traces[0]!.budget!.inputCapTokens;
    assert.equal(defaults.configuration.modelMaxTokens, windowTokens + 1_250, "the window came from Anthropic's Models API");
    const reported = server.requests.map((request) => request.keptTokens);
    const first = reported[0]! / traces[0]!.budget!.totalTokens;
    assert.ok(first > 1.25 && first < 1.4, `the provider counted ${first.toFixed(3)}x ours at turn 1`);
    assert.ok(Math.max(...reported) > cap * 0.8, 'the run must come near the window for the calibration to matter');
    reported.slice(1).forEach((tokens, index) => assert.ok(tokens <= cap, `turn ${index + 2}: the provider counted ${tokens} of a ${cap}-token window`));
    assert.ok(diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED'));
    // The turns after the first were assembled for the cap divided by the provider's ratio.
    traces.slice(1).forEach((trace) => assert.ok(trace.budget!.inputCapTokens <= Math.floor(cap / 1.2), `turn ${trace.turn} was assembled for ${trace.budget!.inputCapTokens} of ${cap}`));
  } finally {
    await server.close();
  }
});
