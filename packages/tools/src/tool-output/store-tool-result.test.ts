import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PREVIEW_DEFAULTS, previewToolResult, type PutToolOutput, type PutToolOutputStream, type StoredToolOutput, type ToolOutputRef, type ToolOutputStore } from '@strata/context';
import { toolErrorCodeOf } from '../tool-error.js';
import { storeToolResult } from './store-tool-result.js';

/** A port implementation that records how each body arrived; the real stores live in @strata/store. */
function recordingStore(options: { streams: boolean }): ToolOutputStore & { readonly chunkCounts: number[]; readonly bodies: Map<string, string> } {
  const bodies = new Map<string, string>();
  const chunkCounts: number[] = [];
  const keep = (output: PutToolOutput, chunks: number): ToolOutputRef => {
    const id = `out_${bodies.size + 1}`;
    bodies.set(id, output.body);
    chunkCounts.push(chunks);
    const body = output.body;
    return { id, chars: body.length, lines: body === '' ? 0 : body.split('\n').length - (body.endsWith('\n') ? 1 : 0), bytes: Buffer.byteLength(body, 'utf8') };
  };
  const putStream = async (output: PutToolOutputStream): Promise<ToolOutputRef> => {
    let body = '';
    let chunks = 0;
    for await (const chunk of output.body) {
      output.signal?.throwIfAborted();
      body += chunk;
      chunks += 1;
    }
    return keep({ ...output, body }, chunks);
  };
  return {
    bodies,
    chunkCounts,
    put: async (output) => keep(output, 0),
    ...(options.streams ? { putStream } : {}),
    get: async (refId): Promise<StoredToolOutput | undefined> => undefined,
    close: async () => undefined,
  };
}

async function* chunked(body: string, lengths: readonly number[]): AsyncGenerator<string> {
  for (let at = 0, index = 0; at < body.length; index += 1) {
    const length = lengths[index % lengths.length]!;
    yield body.slice(at, at + length);
    at += length;
  }
}

const call = { id: 'call_1', name: 'dump' };

test('a long body enters the history as the preview previewToolResult makes, streamed or whole, cut anywhere (property)', async () => {
  const codeUnit = fc.constantFrom('a', '\n', '中', '\ud83d', '\ude00', '\ud800', '\udc00');
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: codeUnit, minLength: 1_241, maxLength: 2_500 }), fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 6 }), async (body, lengths) => {
      const store = recordingStore({ streams: true });
      const whole = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: body }, inlineMaxChars: 0 });
      const streamed = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: '', stream: chunked(body, lengths) }, inlineMaxChars: 0 });
      const expected = (outputRef: ToolOutputRef) => previewToolResult({ role: 'tool', toolCallId: call.id, toolName: call.name, content: body, outputRef }, PREVIEW_DEFAULTS)?.content;
      assert.equal(whole.content, expected(whole.outputRef!));
      assert.equal(streamed.content, expected(streamed.outputRef!));
      assert.equal(whole.masked, true);
      assert.equal(streamed.masked, true);
      assert.equal(store.bodies.get(streamed.outputRef!.id), body, 'the store received the whole body');
    }),
    { numRuns: 60 },
  );
});

test('a body up to the inline bound is kept whole in the history; content comes before the stream', async () => {
  const store = recordingStore({ streams: true });
  // Lines of 300 characters: the redaction releases a streamed body a line at a time.
  const body = `${'x'.repeat(299)}\n`.repeat(6) + 'x'.repeat(200);
  const result = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: 'header\n', stream: chunked(body, [300]) }, inlineMaxChars: 2_007 });
  assert.equal(result.content, `header\n${body}`);
  assert.equal(result.masked, undefined);
  assert.equal(store.chunkCounts[0], 8, 'content and 7 chunks went to putStream one by one');
  const over = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: 'header\n', stream: chunked(body, [300]) }, inlineMaxChars: 2_006 });
  assert.equal(over.masked, true);
  assert.ok(over.content.startsWith(`[stored output ref="${over.outputRef!.id}": 2007 characters, 8 lines;`), over.content.slice(0, 120));
});

test('the default bound keeps 256 Ki characters whole and previews one more', async () => {
  const store = recordingStore({ streams: true });
  const atBound = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: 'q'.repeat(262_144) } });
  assert.equal(atBound.content.length, 262_144);
  const over = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: '', stream: chunked('q'.repeat(262_145), [65_536]) } });
  assert.equal(over.masked, true);
  assert.ok(over.content.length < 1_000);
});

test('a store without putStream receives the streamed body gathered', async () => {
  const store = recordingStore({ streams: false });
  const result = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: 'a', stream: chunked('bcdef', [2]) } });
  assert.equal(result.content, 'abcdef');
  assert.equal(store.bodies.get(result.outputRef!.id), 'abcdef');
});

test('a stream that throws or yields a non-string becomes a TOOL_HANDLER_FAILED result, its credentials redacted', async () => {
  const store = recordingStore({ streams: true });
  const throwing = (async function* () {
    yield 'partial output';
    throw new Error('connection to postgres://admin:hunter2@db.internal/prod lost');
  })();
  const failed = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: '', stream: throwing } });
  assert.equal(failed.isError, true);
  assert.equal(toolErrorCodeOf({ content: failed.content, isError: true, data: JSON.parse(failed.content) }), 'TOOL_HANDLER_FAILED');
  assert.match(failed.content, /failed while streaming its output/);
  assert.doesNotMatch(failed.content, /hunter2/);
  assert.equal(store.bodies.get(failed.outputRef!.id), failed.content, 'the error is what is stored; nothing of the partial body');
  const notText = (async function* () {
    yield 42 as unknown as string;
  })();
  const refused = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: '', stream: notText } });
  assert.match(refused.content, /yielded a number, not a string/);
  const notIterable = await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: '', stream: 'text' as unknown as AsyncIterable<string> } });
  assert.match(notIterable.content, /not an async iterable/);
});

test('an abort while streaming is thrown, not stored as a tool failure', async () => {
  const store = recordingStore({ streams: true });
  const controller = new AbortController();
  const stream = (async function* () {
    yield 'one';
    controller.abort(new Error('run cancelled'));
    yield 'two';
  })();
  await assert.rejects(storeToolResult({ store, contextId: 'ctx', call, outcome: { content: '', stream }, signal: controller.signal }), /run cancelled/);
  assert.equal(store.bodies.size, 0);
});

test('credentials in a successful body, whole or streamed with a credential cut across chunks, are redacted before the store or the history holds them', async () => {
  const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiI0MiJ9', 'c2lnbmF0dXJlX3ZhbHVlXzEyMw'].join('.');
  const body = `config:\nPGPASSWORD=pa55-w0rd psql\ntoken ${jwt}\nend`;
  const expected = 'config:\nPGPASSWORD=[REDACTED:secret-assignment] psql\ntoken [REDACTED:jwt]\nend';
  for (const outcome of [{ content: body }, { content: '', stream: chunked(body, [5, 3]) }]) {
    const store = recordingStore({ streams: true });
    const reported: unknown[] = [];
    const result = await storeToolResult({ store, contextId: 'ctx', call, outcome, onRedacted: (redactions) => reported.push(redactions) });
    assert.equal(result.content, expected);
    assert.equal(store.bodies.get(result.outputRef!.id), expected);
    assert.equal(result.outputRef!.chars, expected.length, 'the reference describes the stored, redacted body');
    assert.deepEqual(reported, [[{ kind: 'jwt', count: 1 }, { kind: 'secret-assignment', count: 1 }]]);
  }
  const clean = await storeToolResult({ store: recordingStore({ streams: false }), contextId: 'ctx', call, outcome: { content: 'nothing here' }, onRedacted: () => assert.fail('a clean body reports nothing') });
  assert.equal(clean.content, 'nothing here');
});
