import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, wrapLanguageModel, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { ContextTraceV5, TraceSink } from '@strata/context';
import { asImportedImages, importSdkMessages } from '@strata/context';
import { createStrataAiSdk } from './strata-ai-sdk.js';

type Prompt = MockLanguageModelV3['doGenerateCalls'][number]['prompt'];

/** A 100 KB PNG: the signature, then bytes that differ along the file (no run of one byte a counter could shorten). */
const PNG = (() => {
  const bytes = new Uint8Array(100 * 1024);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let index = 8; index < bytes.length; index += 1) bytes[index] = (index * 131 + (index >> 7)) % 251;
  return bytes;
})();
/** Well under what the image charged as a file would take (a token per byte: over 100,000). */
const BUDGET = { inputCapTokens: 8_000 };

function traces(): TraceSink & { documents: ContextTraceV5[] } {
  const documents: ContextTraceV5[] = [];
  return { documents, async write(document) { documents.push(document.body as ContextTraceV5); } };
}

/** What a call's messages were charged: its total less the tools (prepareStep charges `read_tool_output` besides). */
function messageTokens(trace: ContextTraceV5): number {
  return trace.budget!.totalTokens - trace.budget!.toolTokens;
}

function answering(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    // Every URL is one the model takes as it is (the SDK downloads nothing).
    supportedUrls: { '*/*': [/.*/] },
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'A chart of the quarter.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1_500, noCache: 1_500, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 6, text: 6, reasoning: 0 } },
      warnings: [],
    }),
  });
}

/** The budget's total of one call made through prepareStep and one through the middleware, for the same messages. */
async function bothPaths(messages: ModelMessage[]): Promise<{ prepareStep: ContextTraceV5; middleware: ContextTraceV5; sent: Prompt }> {
  const viaStep = traces();
  const step = createStrataAiSdk({ budget: BUDGET, traceSink: viaStep });
  const stepResult = await generateText({ model: answering(), messages, prepareStep: step.prepareStep, onFinish: step.onFinish });
  assert.equal(stepResult.text, 'A chart of the quarter.');
  const viaMiddleware = traces();
  const wrapped = createStrataAiSdk({ budget: BUDGET, traceSink: viaMiddleware });
  const inner = answering();
  const result = await generateText({ model: wrapLanguageModel({ model: inner, middleware: wrapped.middleware }), messages });
  assert.equal(result.text, 'A chart of the quarter.');
  assert.equal(viaStep.documents.length, 1, 'one trace per call (prepareStep)');
  assert.equal(viaMiddleware.documents.length, 1, 'one trace per call (middleware)');
  return { prepareStep: viaStep.documents[0]!, middleware: viaMiddleware.documents[0]!, sent: inner.doGenerateCalls[0]!.prompt };
}

for (const [name, image] of [
  ['inline bytes', PNG],
  ['base64', Buffer.from(PNG).toString('base64')],
  ['a data URL', `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`],
  ['a URL', new URL('https://example.com/charts/q3.png')],
] as const) {
  test(`AI SDK middleware: a 100 KB PNG given as ${name} is charged as an image, as prepareStep charges it, and reaches the model unchanged`, async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'What does this chart show?' }, { type: 'image', image, mediaType: 'image/png' }] }];
    const { prepareStep, middleware, sent } = await bothPaths(messages);
    const charged = messageTokens(middleware);
    assert.equal(charged, messageTokens(prepareStep), 'the middleware charges what prepareStep charges');
    assert.ok(charged < 4_000, `an image, not a file: ${charged} tokens`);
    const file = (sent[0]!.content as Array<{ type: string; mediaType?: string; data?: unknown }>).find((part) => part.type === 'file');
    assert.equal(file?.mediaType, 'image/png');
    if (image instanceof URL) assert.equal(String(file?.data), image.href);
    else assert.equal(Buffer.from(typeof file?.data === 'string' ? Buffer.from(file.data, 'base64') : (file?.data as Uint8Array)).equals(Buffer.from(PNG)), true, 'the bytes reach the model as they were');
  });
}

test('AI SDK middleware: a PDF is still charged as a file, an image of unknown type (image/*) as an image', async () => {
  const pdf = new Uint8Array(4 * 1024).fill(0x41);
  const { middleware: file } = await bothPaths([{ role: 'user', content: [{ type: 'text', text: 'Summarize.' }, { type: 'file', data: pdf, mediaType: 'application/pdf' }] }]);
  const { middleware: image, prepareStep } = await bothPaths([{ role: 'user', content: [{ type: 'text', text: 'Summarize.' }, { type: 'file', data: PNG, mediaType: 'image/*' }] }]);
  assert.ok(messageTokens(file) > messageTokens(image), `a 4 KB PDF (${messageTokens(file)}) costs more than the image (${messageTokens(image)})`);
  assert.equal(messageTokens(image), messageTokens(prepareStep));
});

test('middleware import: an image a tool returned as file-data is an image of the tool result; other parts and messages are left as they are', () => {
  const base64 = Buffer.from(PNG).toString('base64');
  const toolMessage = {
    role: 'tool' as const,
    content: [{ type: 'tool-result' as const, toolCallId: 'call-1', toolName: 'screenshot', output: { type: 'content' as const, value: [{ type: 'text' as const, text: 'the page' }, { type: 'file-data' as const, data: base64, mediaType: 'image/png', filename: 'page.png' }, { type: 'file-data' as const, data: 'JVBERg==', mediaType: 'application/pdf' }] } }],
  };
  const [imported] = importSdkMessages([toolMessage], asImportedImages);
  assert.equal(imported!.origin && 'toolMessage' in imported!.origin ? imported!.origin.toolMessage : undefined, toolMessage, 'the origin is the prompt message itself');
  assert.deepEqual((imported!.message as { media?: Array<{ type: string; mediaType: string }> }).media?.map(({ type, mediaType }) => [type, mediaType]), [['image', 'image/png'], ['file', 'application/pdf']]);
  const system = { role: 'system' as const, content: 'Be brief.' };
  assert.equal(asImportedImages(system), system);
  const textOnly = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };
  assert.equal(asImportedImages(textOnly), textOnly);
});
