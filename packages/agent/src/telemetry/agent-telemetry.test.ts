import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ContextContributorRegistry, createContextAssembler, resolveContextBudget, resolveContextConfiguration, type CanonicalMessage, type ToolDefinition } from '@strata/context';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createMemoryStores } from '@strata/store';
import { closedPort, memoryOutputStore, withOtel } from '@strata/testing';
import { registerStandardTools, storeToolResult, ToolRegistry } from '@strata/tools';
import { createAgentRun } from '../create-agent-run.js';
import { ConfigurationError } from '@strata/context';
import { createAgentTelemetry } from './agent-telemetry.js';
import { OTLP_TRACE_EXPORTERS, otlpTracerFromEnvironment, otlpTracesEnabled } from './otlp-tracer.js';

const SECRET_OUTPUT = 'SECRET-TOOL-OUTPUT';
const SECRET_PROMPT = 'SECRET-PROMPT: measure S1 and S2';
const report = Array.from({ length: 300 }, (_, index) => `${SECRET_OUTPUT} line ${index}`).join('\n');
const measure: ToolDefinition = {
  name: 'measure',
  description: 'Measures a sample.',
  parameters: { type: 'object', properties: { sample: { type: 'string' } }, required: ['sample'] },
  // S2's output is over the inline limit: it enters the history as a preview.
  execute: (input) => ({ content: (input as { sample: string }).sample === 'ARG-S2' ? report.repeat(40) : report }),
};
const call = (id: string, sample: string): ScriptedTurn => ({ parts: [{ type: 'tool-call', id, name: 'measure', input: { sample: `ARG-${sample}` } }], usage: { inputTokens: 900, outputTokens: 10, cachedInputTokens: 512 } });

async function tracedRun(captureContent: boolean, options: { tracer?: Tracer; warn?: (line: string) => void } = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const telemetry = createAgentTelemetry({ tracer: options.tracer ?? provider.getTracer('test'), provider: 'scripted', model: 'scripted-model', contextId: 'otel-run', captureContent, warn: options.warn });
  const stores = createMemoryStores();
  const tools = new ToolRegistry();
  tools.register(measure);
  registerStandardTools({ registry: tools, outputStore: stores.toolOutputs });
  const script = [call('c1', 'S1'), call('c2', 'S2'), { parts: [{ type: 'text' as const, text: 'done' }], usage: { inputTokens: 1000, outputTokens: 2 } }];
  const run = createAgentRun(
    { id: 'otel', sections: { identity: 'You are a lab agent.' } },
    { model: createModelClient({ model: new ScriptedLanguageModel(script) }), tools, outputStore: stores.toolOutputs, sessionStore: stores.sessions, configuration: resolveContextConfiguration({ STRATA_CONTEXT_WINDOW_TOKENS: '5000' }), onStage: telemetry.onStage },
    { contextId: 'otel-run', prompt: SECRET_PROMPT, onEvent: telemetry.onEvent },
  );
  const result = await run.execute();
  telemetry.end();
  return { spans: exporter.getFinishedSpans(), result };
}

test('one trace per run: a root span, a span per model turn below it, children per pipeline stage and per tool call, GenAI attributes, no content', async () => {
  const { spans, result } = await tracedRun(false);
  assert.equal(result.stopReason, 'completed');
  const turns = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
  assert.equal(turns.length, result.turns);
  const idOf = (span: (typeof spans)[number]) => span.spanContext().spanId;
  const parentOf = (span: (typeof spans)[number]) => span.parentSpanContext?.spanId;
  assert.equal(new Set(spans.map((span) => span.spanContext().traceId)).size, 1, 'one trace');
  const roots = spans.filter((span) => parentOf(span) === undefined);
  assert.equal(roots.length, 1);
  const root = roots[0]!;
  assert.equal(root.attributes['gen_ai.operation.name'], 'invoke_agent');
  assert.equal(root.attributes['strata.stop_reason'], 'completed');
  assert.equal(root.attributes['gen_ai.usage.input_tokens'], 900 + 900 + 1000);
  for (const turn of turns) {
    assert.equal(parentOf(turn), idOf(root), 'turns are children of the run');
    assert.equal(turn.name, 'chat scripted-model');
    assert.equal(turn.attributes['gen_ai.provider.name'], 'scripted');
    assert.equal(turn.attributes['gen_ai.request.model'], 'scripted-model');
    assert.equal(typeof turn.attributes['gen_ai.usage.input_tokens'], 'number');
    assert.equal(typeof turn.attributes['gen_ai.usage.output_tokens'], 'number');
    assert.equal(turn.attributes['strata.context.mode'], 'dynamic');
    assert.equal(turn.attributes['strata.context.scope'], 'main');
    assert.equal(typeof turn.attributes['strata.context.tokens.history'], 'number');
    const byContributor = Object.keys(turn.attributes).filter((key) => key.startsWith('strata.context.contributor_tokens.'));
    assert.ok(byContributor.length > 0 && byContributor.every((key) => typeof turn.attributes[key] === 'number'), 'tokens by contributor');
    const stages = spans.filter((span) => parentOf(span) === idOf(turn) && span.name.startsWith('strata.context.'));
    assert.ok(['collect', 'budget', 'render', 'compose', 'window', 'validate'].every((stage) => stages.some((span) => span.attributes['strata.stage'] === stage)), turn.name);
  }
  assert.equal(turns[0]!.attributes['gen_ai.usage.cache_read.input_tokens'], 512);
  assert.deepEqual(turns.map((turn) => turn.attributes['gen_ai.response.finish_reasons']), [['tool-calls'], ['tool-calls'], ['stop']]);
  const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
  assert.deepEqual(tools.map((span) => span.attributes['gen_ai.tool.call.id']), ['c1', 'c2']);
  assert.deepEqual(tools.map((span) => span.attributes['strata.tool.result_characters']), [report.length, report.length * 40], 'the whole output, not its preview');
  assert.ok(tools.every((span) => turns.some((turn) => idOf(turn) === parentOf(span))));
  const compacted = turns.filter((turn) => turn.attributes['gen_ai.conversation.compacted'] === true);
  assert.ok(compacted.length > 0, 'the small window compacted a turn');
  for (const turn of compacted) {
    const events = turn.events.filter((event) => event.name === 'gen_ai.conversation.compacted');
    assert.equal(events.length, 1, 'each compaction is a span event');
    assert.equal(events[0]!.attributes?.['strata.compaction.tokens_before'], turn.attributes['strata.compaction.tokens_before']);
    assert.equal(events[0]!.attributes?.['strata.compaction.tokens_after'], turn.attributes['strata.compaction.tokens_after']);
    assert.equal(turn.attributes['strata.compaction.reason'], 'token-pressure');
    assert.ok((turn.attributes['strata.compaction.tokens_after'] as number) <= (turn.attributes['strata.compaction.tokens_before'] as number));
  }
  assert.ok(compacted.some((turn) => (turn.attributes['strata.compaction.tokens_after'] as number) < (turn.attributes['strata.compaction.tokens_before'] as number)));
  const everything = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
  for (const secret of [SECRET_OUTPUT, 'SECRET-PROMPT', 'ARG-S1', 'lab agent']) assert.ok(!everything.includes(secret), `no content: ${secret}`);
});

test('content capture, switched on explicitly, records the input and the tool arguments and results', async () => {
  const { spans } = await tracedRun(true);
  const everything = JSON.stringify(spans.map((span) => span.attributes));
  assert.ok(everything.includes('SECRET-PROMPT'));
  assert.ok(everything.includes('ARG-S1'));
  assert.ok(everything.includes(SECRET_OUTPUT));
});

test('OTLP is on only when the OTEL_* variables ask for it; an absent SDK package is a ConfigurationError naming it', async () => {
  assert.equal(otlpTracesEnabled({}), false);
  assert.equal(otlpTracesEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
  assert.equal(otlpTracesEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
  assert.equal(otlpTracesEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.equal(otlpTracesEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(otlpTracesEnabled({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(otlpTracesEnabled(null as never), false);
  assert.equal(await otlpTracerFromEnvironment({}), undefined);
  const warnings: string[] = [];
  const thrift = await otlpTracerFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }, { warn: (line) => warnings.push(line) });
  assert.ok(thrift);
  await thrift.shutdown();
  assert.deepEqual(warnings, ['telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=thrift is not supported (use http/json, http/protobuf, grpc); traces are sent as http/json']);
  const missing = (specifier: string) => Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' }));
  await assert.rejects(otlpTracerFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, { importModule: missing }), (error: unknown) => {
    assert.ok(ConfigurationError.isInstance(error));
    assert.match((error as Error).message, /optional peer dependency "@opentelemetry\/sdk-trace-base"/);
    return true;
  });
});

test('a tracer that fails never reaches the run: it completes and the failure is said once; a missing tracer is a ConfigurationError', async () => {
  const real = new BasicTracerProvider().getTracer('test');
  let calls = 0;
  // The root span starts; every later span fails.
  const failing = { startSpan: (...args: Parameters<Tracer['startSpan']>) => (calls++ === 0 ? real.startSpan(...args) : assert.fail('collector exploded')), startActiveSpan: real.startActiveSpan.bind(real) } as unknown as Tracer;
  const warnings: string[] = [];
  const { result } = await tracedRun(false, { tracer: failing, warn: (line) => warnings.push(line) });
  assert.equal(result.stopReason, 'completed');
  assert.ok(calls > 2);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /telemetry: could not record a span \(collector exploded\)/);
  for (const options of [undefined, null, {}, { tracer: {} }]) {
    assert.throws(() => createAgentTelemetry(options as never), (error: unknown) => ConfigurationError.isInstance(error) && /options\.tracer/.test((error as Error).message));
  }
});

test('a turn whose window drops stored outputs has the span event strata.context.windowed: how many, their tokens, each reference', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const telemetry = createAgentTelemetry({ tracer: provider.getTracer('test'), provider: 'scripted', model: 'scripted-model', contextId: 'windowed' });
  // Short references (out-1, ...), so the index of a small window lists them rather than only counting them.
  const outputs = memoryOutputStore();
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Measure every sample.' }];
  for (let step = 1; step <= 10; step += 1) {
    const call = { id: `c${step}`, name: 'measure' };
    history.push({ role: 'assistant', content: '', toolCalls: [{ ...call, input: { sample: `S${step}` } }] });
    history.push(await storeToolResult({ store: outputs, contextId: 'windowed', call, outcome: { content: report } }));
  }
  const assembler = createContextAssembler({ registry: new ContextContributorRegistry(), budget: resolveContextBudget({ modelMaxTokens: 3_000, outputReserveTokens: 1_000 }) });
  const { trace } = await assembler.assemble({ contextId: 'windowed', turn: 1, history, tools: [] });
  const receipts = trace.renderedContext?.windowReceipts ?? [];
  assert.ok(receipts.length >= 3, `the window must drop and list outputs (${receipts.length})`);
  telemetry.onEvent({ type: 'turn-start', turn: 1 } as never);
  telemetry.onEvent({ type: 'context-assembled', turn: 1, trace } as never);
  telemetry.end();
  const turn = exporter.getFinishedSpans().find((span) => span.attributes['gen_ai.operation.name'] === 'chat');
  const events = turn?.events.filter((event) => event.name === 'strata.context.windowed') ?? [];
  assert.equal(events.length, 1);
  assert.equal(events[0]!.attributes?.['strata.window.receipts'], receipts.length);
  assert.equal(events[0]!.attributes?.['strata.window.tokens_dropped'], receipts.reduce((total, receipt) => total + receipt.tokensBefore, 0));
  // Each reference the window's index lists, in history order.
  const index = trace.llmInput.messages.find((message) => message.role === 'user' && message.content.startsWith('<earlier_outputs'));
  const listed = history.flatMap((message) => (message.role === 'tool' && index?.role === 'user' && index.content.includes(`ref="${message.outputRef!.id}"`) ? [message.outputRef!.id] : []));
  assert.deepEqual(events[0]!.attributes?.['strata.window.refs'], listed);
});

// ---- OTLP protocols: what a local receiver gets, decoded here from the protobuf wire format (no SDK code) ----

/** The length-delimited values of field `field` in a protobuf message; every other field is skipped. */
function protoFields(bytes: Uint8Array, field: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated protobuf');
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const wireType = key % 8;
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (Math.floor(key / 8) === field) found.push(bytes.subarray(at, at + length));
      at += length;
    } else throw new Error(`protobuf wire type ${wireType}`);
  }
  return found;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** An ExportTraceServiceRequest: resource_spans (1) > resource (1) attributes (1) and scope_spans (2) > spans (2) > trace_id (1), name (5). */
function decodeTraceRequest(body: Uint8Array): { serviceNames: string[]; spans: Array<{ traceId: string; name: string }> } {
  const serviceNames: string[] = [];
  const spans: Array<{ traceId: string; name: string }> = [];
  for (const resourceSpans of protoFields(body, 1)) {
    for (const resource of protoFields(resourceSpans, 1)) {
      for (const attribute of protoFields(resource, 1)) {
        if (protoFields(attribute, 1).map(text)[0] !== 'service.name') continue;
        for (const value of protoFields(attribute, 2)) serviceNames.push(...protoFields(value, 1).map(text));
      }
    }
    for (const scopeSpans of protoFields(resourceSpans, 2)) {
      for (const span of protoFields(scopeSpans, 2)) spans.push({ traceId: hex(protoFields(span, 1)[0] ?? new Uint8Array()), name: text(protoFields(span, 5)[0] ?? new Uint8Array()) });
    }
  }
  return { serviceNames, spans };
}

test('the protobuf reader of these tests reads what it is given: a hand-built request with two spans of one trace', () => {
  const field = (number: number, bytes: Uint8Array) => Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);
  const span = (name: string) => field(2, Buffer.concat([field(1, Buffer.alloc(16, 7)), Buffer.from([0x28, 0x01]), field(5, Buffer.from(name))]));
  const attribute = field(1, Buffer.concat([field(1, Buffer.from('service.name')), field(2, field(1, Buffer.from('svc')))]));
  const request = field(1, Buffer.concat([field(1, attribute), field(2, Buffer.concat([span('a'), span('b')]))]));
  assert.deepEqual(decodeTraceRequest(request), { serviceNames: ['svc'], spans: [{ traceId: '07'.repeat(16), name: 'a' }, { traceId: '07'.repeat(16), name: 'b' }] });
});

/** The run, traced through the OTLP tracer `env` asks for (set in process.env too, where the exporter reads it), flushed at its end. */
async function exportedRun(env: Record<string, string>) {
  const warnings: string[] = [];
  return withOtel(env, async () => {
    const otlp = await otlpTracerFromEnvironment(env, { warn: (line) => warnings.push(line) });
    assert.ok(otlp);
    const { result } = await tracedRun(false, { tracer: otlp.tracer });
    await otlp.shutdown();
    return { result, warnings };
  });
}

/** The export requests a receiver got hold one trace, every span the run records in memory, and the service `serviceName`. */
async function assertOneTraceOfTheRun(requests: readonly Uint8Array[], serviceName: string): Promise<void> {
  const decoded = requests.map((body) => decodeTraceRequest(body));
  const spans = decoded.flatMap((request) => request.spans);
  assert.equal(new Set(spans.map((span) => span.traceId)).size, 1, 'one trace');
  const expected = (await tracedRun(false)).spans.map((span) => span.name).sort();
  assert.deepEqual(spans.map((span) => span.name).sort(), expected, 'every span of the run');
  assert.deepEqual([...new Set(decoded.flatMap((request) => request.serviceNames))], [serviceName]);
}

test('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf: a local receiver gets protobuf, one trace holding every span of the run, the service named', async () => {
  const bodies: Array<{ contentType: string | undefined; path: string | undefined; body: Buffer }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ contentType: request.headers['content-type'], path: request.url, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const endpoint = `http://127.0.0.1:${port}/v1/traces`;
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'lab-agent' };
    const { result, warnings } = await exportedRun(env);
    assert.equal(result.stopReason, 'completed');
    assert.deepEqual(warnings, []);
    assert.ok(bodies.length > 0, 'the receiver got the traces');
    for (const { contentType, path } of bodies) {
      assert.equal(contentType, 'application/x-protobuf');
      assert.equal(path, '/v1/traces');
    }
    await assertOneTraceOfTheRun(bodies.map(({ body }) => body), 'lab-agent');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf with the collector down: the run completes, the failure is said once', async () => {
  const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${await closedPort()}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
  const { result, warnings } = await exportedRun(env);
  assert.equal(result.stopReason, 'completed');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^telemetry: could not export traces \(.*\); the run goes on without them$/);
});

test('each protocol loads its own exporter package only; one not installed is a ConfigurationError naming it and the variable', async () => {
  for (const [protocol, exporter] of Object.entries(OTLP_TRACE_EXPORTERS)) {
    const loaded: string[] = [];
    const importModule = (specifier: string) => {
      loaded.push(specifier);
      return specifier === exporter ? Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' })) : import(specifier);
    };
    await assert.rejects(otlpTracerFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ` ${protocol.toUpperCase()} ` }, { importModule }), (error: unknown) => {
      assert.ok(ConfigurationError.isInstance(error));
      assert.equal((error as ConfigurationError).setting, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL');
      assert.match((error as Error).message, new RegExp(`optional peer dependency "${exporter.replace('/', '\\/')}"`));
      return true;
    });
    assert.deepEqual(loaded.filter((name) => name.includes('exporter')), [exporter], `${protocol} loads ${exporter} only`);
  }
});

test('OTEL_EXPORTER_OTLP_PROTOCOL=grpc: a local gRPC receiver (@grpc/grpc-js) gets one trace holding every span of the run', async (t) => {
  type Grpc = typeof import('@grpc/grpc-js');
  let grpc: Grpc;
  try {
    grpc = (await import('@grpc/grpc-js')) as Grpc;
  } catch {
    t.skip('@grpc/grpc-js is not installed: no gRPC receiver');
    return;
  }
  const requests: Buffer[] = [];
  const server = new grpc.Server();
  const identity = (value: Buffer) => value;
  server.addService(
    { Export: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export', requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } },
    {
      Export: (call: { request: Buffer }, callback: (error: null, response: Buffer) => void) => {
        requests.push(call.request);
        callback(null, Buffer.alloc(0));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  try {
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' };
    const { result, warnings } = await exportedRun(env);
    assert.equal(result.stopReason, 'completed');
    assert.deepEqual(warnings, []);
    assert.ok(requests.length > 0, 'the receiver got the traces');
    await assertOneTraceOfTheRun(requests, 'strata');
  } finally {
    server.forceShutdown();
  }
});
