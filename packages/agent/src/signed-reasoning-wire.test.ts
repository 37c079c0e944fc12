// Signed thinking (Anthropic) and reasoning items (OpenAI Responses) under
// pressure, on the wire: every request a run of 24 turns sends, converted by
// the AI SDK providers themselves, carries the latest signed message exactly
// as the provider would be sent that message alone (its thinking first; its
// reasoning items before the function calls they preceded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AssistantMessage, CanonicalMessage, ReasoningPart } from '@strata/context';
import { createLanguageModel, createModelClient, generate, type ModelRequest } from '@strata/model';
import { carriesSignature, loadProviderRules, runSignedSession, signatureKey, type SignedSessionTurn } from '@strata/testing';

const rules = await loadProviderRules();

type Provider = 'anthropic' | 'openai';
type WireBody = { messages?: Array<{ role: string; content: unknown }>; input?: unknown[] };

const ANTHROPIC_TEXT_EVENTS = [
  ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
  ['message_stop', { type: 'message_stop' }],
] as const;

const RESPONSES_TEXT_EVENTS = [
  ['response.created', { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', created_at: 1_764_000_000, model: 'gpt-5', status: 'in_progress' } }],
  ['response.output_item.added', { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] } }],
  ['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'ok' }],
  ['response.output_item.done', { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] } }],
  ['response.completed', { type: 'response.completed', sequence_number: 4, response: { id: 'resp_1', status: 'completed', incomplete_details: null, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 } } }],
] as const;

/**
 * What the provider's own AI SDK converter sends for a history: a fetch that
 * records each request body and answers with a short text stream, so no
 * network and no retry is involved.
 */
function wireFor(provider: Provider): (messages: readonly CanonicalMessage[]) => Promise<WireBody> {
  const bodies: WireBody[] = [];
  const events = provider === 'anthropic' ? ANTHROPIC_TEXT_EVENTS : RESPONSES_TEXT_EVENTS;
  const sse = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  const fetch: typeof globalThis.fetch = async (_url, init) => {
    bodies.push(JSON.parse(String(init?.body)) as WireBody);
    return new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  const model =
    provider === 'anthropic'
      ? createLanguageModel({ model: 'anthropic:claude-sonnet-4-5', apiKey: 'test-key', fetch })
      : createLanguageModel({ model: 'openai:gpt-5', openaiApi: 'responses', apiKey: 'test-key', fetch });
  const client = createModelClient({ model });
  // Responses with store off: reasoning goes back as items with their encrypted content, not as references.
  const options: Partial<ModelRequest> = provider === 'anthropic' ? { reasoning: { budgetTokens: 2_048 } } : { providerOptions: { openai: { store: false } } };
  return async (messages) => {
    await generate(client, { messages, ...options });
    return bodies.at(-1)!;
  };
}

/** The wire items a message alone turns into: its Anthropic assistant message, or its Responses input items. */
function itemsOf(provider: Provider, body: WireBody): readonly unknown[] {
  return provider === 'anthropic' ? body.messages!.slice(1, 2) : body.input!.slice(1);
}

function sliceLike(haystack: readonly unknown[], needle: readonly unknown[]): string | undefined {
  const first = JSON.stringify(needle[0]);
  const at = haystack.findIndex((item) => JSON.stringify(item) === first);
  return at < 0 ? undefined : JSON.stringify(haystack.slice(at, at + needle.length));
}

/** Checks, for every signed message a turn sends, that its wire form is the one of the canonical message sent alone. */
function wireCheck(provider: Provider) {
  const wire = wireFor(provider);
  const alone = new Map<string, readonly unknown[]>();
  return async ({ assembled, latest, originals, turn }: SignedSessionTurn) => {
    const sent = assembled.input.messages;
    const body = await wire(sent);
    const items = provider === 'anthropic' ? body.messages! : body.input!;
    const signed = sent.filter(carriesSignature);
    if (latest) assert.ok(signed.some((message) => signatureKey(message) === signatureKey(latest)), `turn ${turn}: the latest signed message is sent`);
    for (const message of signed) {
      const key = signatureKey(message);
      if (!alone.has(key)) {
        const canonical = JSON.parse(originals.get(key)!) as AssistantMessage;
        alone.set(key, itemsOf(provider, await wire([{ role: 'user', content: 'x' }, canonical])));
      }
      const expected = alone.get(key)!;
      if (provider === 'openai') {
        const kinds = expected.map((item) => (item as { type?: string }).type);
        assert.equal(kinds[0], 'reasoning', 'a reasoning item comes first');
        assert.ok((expected[0] as { encrypted_content?: string }).encrypted_content, 'with its encrypted content');
      } else {
        assert.equal(((expected[0] as { content: Array<{ type: string }> }).content[0]!).type.endsWith('thinking'), true, 'thinking opens the assistant message');
      }
      assert.equal(sliceLike(items, expected), JSON.stringify(expected), `turn ${turn}: the ${provider} wire form of a signed message is byte-identical to the canonical message's`);
    }
  };
}

const body = (name: string) => `${name}\n` + `row ${name}: value 0123456789 and more text\n`.repeat(60);
const reasoningOf = (provider: Provider, step: number, redacted = false): ReasoningPart[] => {
  if (provider === 'openai') return [{ text: `Step ${step}: which call next.`, providerMetadata: { openai: { itemId: `rs_${step}`, reasoningEncryptedContent: `gAAAA${step}`.repeat(8) } } }];
  if (redacted) return [{ text: '', providerMetadata: { anthropic: { redactedData: `EmwKAhgB${step}`.repeat(6) } } }];
  return [{ text: `Step ${step}: which call next, and why.`, providerMetadata: { anthropic: { signature: `EqQBCgIYAh${step}`.repeat(6) } } }];
};

function stepsFor(provider: Provider): CanonicalMessage[][] {
  const call = (id: string, query: string) => ({ id, name: 'search', input: { query } });
  const result = (id: string, content: string): CanonicalMessage => ({ role: 'tool', toolCallId: id, toolName: 'search', content });
  return [
    [{ role: 'assistant', content: '', reasoning: reasoningOf(provider, 1), toolCalls: [call('c1', 'papers')] }, result('c1', body('papers'))],
    [{ role: 'assistant', content: 'Two sources.', reasoning: reasoningOf(provider, 2), toolCalls: [call('c2', 'a'), call('c3', 'b')] }, result('c2', body('a')), result('c3', 'b: none')],
    [{ role: 'assistant', content: 'So far: two sources agree.', reasoning: reasoningOf(provider, 3) }, { role: 'user', content: 'Good. Check the third source too.' }],
    [{ role: 'assistant', content: '', reasoning: reasoningOf(provider, 4, true), toolCalls: [call('c4', 'third')] }, result('c4', body('third'))],
    [{ role: 'assistant', content: '', reasoning: reasoningOf(provider, 5), toolCalls: [call('c5', 'detail')] }, result('c5', 'detail: 42')],
    [{ role: 'assistant', content: 'One more look.', reasoning: reasoningOf(provider, 6), toolCalls: [call('c6', 'last')] }, result('c6', body('last'))],
  ];
}

for (const provider of ['anthropic', 'openai'] as const) {
  test(`${provider === 'anthropic' ? 'Anthropic thinking' : 'OpenAI Responses reasoning items'} under pressure over 24 turns: the latest signed message goes out byte-identical in every request, canonical and on the wire; older ones identical or absent; the oracle passes`, async () => {
    const totals = { compacted: 0, summarized: 0, cut: 0, masked: 0, droppedSigned: 0 };
    for (const cap of [2_500, 4_096]) {
      for (const summarize of [true, false]) {
        const outcome = await runSignedSession({ task: 'Compare the sources and report.', steps: stepsFor(provider), turns: 24, cap, summarize, broken: new Set([4]), rules, check: wireCheck(provider) });
        for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += outcome[key];
      }
    }
    for (const [what, turns] of Object.entries(totals)) assert.ok(turns > 0, `the runs put the rule under ${what} (${JSON.stringify(totals)})`);
  });
}
