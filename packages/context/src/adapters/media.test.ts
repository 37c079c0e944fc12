import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelMessage } from 'ai';
import { checkCanonicalHistory } from '../canonical-history-check.js';
import { ConservativeTokenEstimator, IMAGE_TOKENS, URL_FILE_TOKENS } from '../conservative-token-estimator.js';
import { ExactTokenEstimator } from '../exact-token-estimator.js';
import type { CanonicalMessage, MediaPart } from '../messages.js';
import { loadProviderRules } from '@strata/testing';
import { fromAiSdkMessages, toAiSdkMessages, toAiSdkMessagesDetailed } from './ai-sdk-messages.js';
import { fromAnthropicMessages, toAnthropicMessagesDetailed } from './anthropic-messages.js';
import { encodeBase64Text } from './media.js';
import { fromOpenAIChat, toOpenAIChatDetailed } from './openai-chat.js';

const rules = await loadProviderRules();

const PNG = 'iVBORw0KGgoAAAANSUhEUg==';
const png: MediaPart = { type: 'image', mediaType: 'image/png', data: PNG };
const imageUrl: MediaPart = { type: 'image', mediaType: 'image/*', url: 'https://example.com/cat.jpg' };
const pdf: MediaPart = { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0xLjQK', filename: 'paper.pdf' };
const pdfUrl: MediaPart = { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/paper.pdf' };
const text: MediaPart = { type: 'file', mediaType: 'text/plain', data: encodeBase64Text('上下文 notes\n') };
const wav: MediaPart = { type: 'file', mediaType: 'audio/wav', data: 'UklGRg==' };
const zip: MediaPart = { type: 'file', mediaType: 'application/zip', data: 'UEsDBA==' };

/** A user turn with media, a call, and a tool result with media. */
function historyWith(userMedia: MediaPart[], toolMedia: MediaPart[], options: { isError?: boolean } = {}): CanonicalMessage[] {
  return [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'what do these show?', media: userMedia },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'render', input: { page: 1 } }] },
    { role: 'tool', toolCallId: 'c1', toolName: 'render', content: 'page 1', media: toolMedia, ...(options.isError ? { isError: true } : {}) },
    { role: 'assistant', content: 'A cat and a paper.' },
  ];
}

test('OpenAI chat: user images, inline files and audio round-trip; tool media and URL files leave a note and a diagnostic', () => {
  const history = historyWith([png, imageUrl, pdf, wav], []);
  const { messages, diagnostics } = toOpenAIChatDetailed(history);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(messages[1]!.content, [
    { type: 'text', text: 'what do these show?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'paper.pdf' } },
    { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
  ]);
  assert.deepEqual(fromOpenAIChat(messages).slice(1, 2), history.slice(1, 2));
  if (rules) assert.deepEqual(rules.violations(messages, 'openai'), []);

  const lossy = toOpenAIChatDetailed(historyWith([pdfUrl], [png]));
  assert.deepEqual(lossy.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.index]), [['ADAPTER_MEDIA_NOT_SENT', 1], ['ADAPTER_MEDIA_NOT_SENT', 3]]);
  assert.deepEqual(lossy.messages[1]!.content, [{ type: 'text', text: 'what do these show?' }, { type: 'text', text: '[not sent: file (application/pdf)]' }]);
  assert.equal(lossy.messages[3]!.content, 'page 1\n[not sent: image (image/png)]');
});

test('Anthropic: images and PDF / plain-text documents round-trip in user turns and tool results; others leave a note and a diagnostic', () => {
  const history = historyWith([png, imageUrl, pdfUrl], [pdf, text]);
  const { diagnostics, ...request } = toAnthropicMessagesDetailed(history);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(request.messages[2]!.content[0], {
    type: 'tool_result',
    tool_use_id: 'c1',
    content: [
      { type: 'text', text: 'page 1' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' }, title: 'paper.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '上下文 notes\n' } },
    ],
  });
  assert.deepEqual(fromAnthropicMessages(JSON.parse(JSON.stringify(request))), history);

  const lossy = toAnthropicMessagesDetailed(historyWith([zip], [{ type: 'image', mediaType: 'image/bmp', data: 'Qk0=' }]));
  assert.deepEqual(lossy.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.index]), [['ADAPTER_MEDIA_NOT_SENT', 1], ['ADAPTER_MEDIA_NOT_SENT', 3]]);
  assert.deepEqual(lossy.messages[0]!.content.at(-1), { type: 'text', text: '[not sent: file (application/zip)]' });
});

test('AI SDK: media round-trip as image / file parts and content tool output; a failed result with media reports its lost flag', () => {
  const history = historyWith([png, imageUrl, pdf, pdfUrl], [png, imageUrl, pdf, pdfUrl]);
  const messages: ModelMessage[] = toAiSdkMessages(history);
  assert.deepEqual(fromAiSdkMessages(JSON.parse(JSON.stringify(messages))), history);
  const { diagnostics } = toAiSdkMessagesDetailed(historyWith([], [png], { isError: true }));
  assert.deepEqual(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.index]), [['ADAPTER_ERROR_FLAG_NOT_SENT', 3]]);
});

test('AI SDK: real ModelMessage values (bytes, URL objects, every tool output type, provider options) import', () => {
  const messages: ModelMessage[] = [
    { role: 'system', content: 'sys', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
    { role: 'user', content: [{ type: 'image', image: new Uint8Array([0x89, 0x50]), mediaType: 'image/png' }, { type: 'image', image: new URL('https://example.com/a.png') }, { type: 'text', text: 'look' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm', providerOptions: { anthropic: { signature: 'sig' } } },
        { type: 'tool-call', toolCallId: 'a', toolName: 't', input: { q: [1, 2] }, providerOptions: { google: { thoughtSignature: 'ts' } } },
        { type: 'tool-call', toolCallId: 'b', toolName: 't', input: 'not json' },
        { type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} },
        { type: 'tool-call', toolCallId: 'd', toolName: 't', input: {} },
        { type: 'tool-call', toolCallId: 'e', toolName: 't', input: {} },
        { type: 'tool-approval-request', approvalId: 'p', toolCallId: 'e' },
      ],
      providerOptions: { openai: { itemId: 'i1' } },
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'json', value: { n: 1 } } },
        { type: 'tool-result', toolCallId: 'b', toolName: 't', output: { type: 'error-json', value: ['bad'] } },
        { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'error-text', value: 'boom' } },
        { type: 'tool-result', toolCallId: 'd', toolName: 't', output: { type: 'content', value: [{ type: 'text', text: 'see ' }, { type: 'image-data', data: PNG, mediaType: 'image/png' }, { type: 'file-url', url: 'https://x/y.pdf', mediaType: 'application/pdf' }] } },
        { type: 'tool-approval-response', approvalId: 'p', approved: false },
        { type: 'tool-result', toolCallId: 'e', toolName: 't', output: { type: 'execution-denied', reason: 'not allowed' } },
      ],
    },
  ];
  const history = fromAiSdkMessages(messages);
  checkCanonicalHistory(history);
  assert.deepEqual(history, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'look', media: [{ type: 'image', mediaType: 'image/png', data: 'iVA=' }, { type: 'image', mediaType: 'image/*', url: 'https://example.com/a.png' }] },
    {
      role: 'assistant',
      content: '',
      reasoning: [{ text: 'hmm', providerMetadata: { anthropic: { signature: 'sig' } } }],
      toolCalls: [
        { id: 'a', name: 't', input: { q: [1, 2] }, providerMetadata: { google: { thoughtSignature: 'ts' } } },
        { id: 'b', name: 't', input: 'not json' },
        { id: 'c', name: 't', input: {} },
        { id: 'd', name: 't', input: {} },
        { id: 'e', name: 't', input: {} },
      ],
      providerMetadata: { openai: { itemId: 'i1' } },
    },
    { role: 'tool', toolCallId: 'a', toolName: 't', content: '{"n":1}' },
    { role: 'tool', toolCallId: 'b', toolName: 't', content: '["bad"]', isError: true },
    { role: 'tool', toolCallId: 'c', toolName: 't', content: 'boom', isError: true },
    { role: 'tool', toolCallId: 'd', toolName: 't', content: 'see ', media: [{ type: 'image', mediaType: 'image/png', data: PNG }, { type: 'file', mediaType: 'application/pdf', url: 'https://x/y.pdf' }] },
    { role: 'tool', toolCallId: 'e', toolName: 't', content: 'not allowed', isError: true },
  ]);
});

test('both estimators charge media conservatively: a constant per image, the decoded size per inline file, a constant per URL file', () => {
  const bytes = 'A'.repeat(4_000); // 3,000 decoded bytes
  for (const estimator of [new ConservativeTokenEstimator(), new ExactTokenEstimator({ family: 'o200k' })]) {
    const plain = estimator.countMessage({ role: 'user', content: 'look' });
    assert.equal(estimator.countMessage({ role: 'user', content: 'look', media: [png] }), plain + IMAGE_TOKENS);
    assert.equal(estimator.countMessage({ role: 'user', content: 'look', media: [{ type: 'file', mediaType: 'text/plain', data: bytes }] }), plain + 3_000);
    const tool = estimator.countMessage({ role: 'tool', toolCallId: 'a', toolName: 't', content: 'look' });
    assert.equal(estimator.countMessage({ role: 'tool', toolCallId: 'a', toolName: 't', content: 'look', media: [pdfUrl, imageUrl] }), tool + URL_FILE_TOKENS + IMAGE_TOKENS);
  }
});
