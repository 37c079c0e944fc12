import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConservativeTokenEstimator, ContextContributorRegistry, createContextAssembler, DefaultHistoryCompactor, describeReceipt, resolveContextBudget, type CanonicalMessage, type CompactionReceipt, type ContextState } from '@strata/context';
import { memoryOutputStore, scriptedSummarizer } from '@strata/testing';
import { ToolRegistry } from '../registry/tool-registry.js';
import { createReadToolOutputTool } from './read-tool-output-tool.js';
import { nextArgumentsOf } from './read-tool-output.js';
import { storeToolResult } from './store-tool-result.js';

const estimator = new ConservativeTokenEstimator();

/** A fixture run: each step calls a tool whose stored body mixes CJK, astral characters, CRLF and a trailing line. */
async function fixture(steps: number) {
  const store = memoryOutputStore();
  const history: CanonicalMessage[] = [{ role: 'system', content: 'policy' }, { role: 'user', content: 'Find the cheapest flight.' }];
  for (let step = 1; step <= steps; step += 1) {
    const call = { id: `c${step}`, name: 'search_flights' };
    history.push({ role: 'assistant', content: `step ${step}`, toolCalls: [{ ...call, input: { step } }] });
    const body = Array.from({ length: 160 }, (_, row) => `第${row}行 😀 flight=HAT${step}${row} seats=${row % 13}`).join('\r\n') + `\nend of ${step}\n`;
    history.push(await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: body } }));
  }
  return { store, history };
}

/** The whole stored body, by following `read_tool_output`'s own continuation until it ends. */
async function readBack(registry: ToolRegistry, retrieve: string): Promise<string> {
  const match = /^read_tool_output\((.*)\)$/s.exec(retrieve);
  assert.ok(match, `not a read_tool_output call: ${retrieve}`);
  let request: object | undefined = JSON.parse(match[1]!) as object;
  let rebuilt = '';
  for (let calls = 0; request !== undefined; calls += 1) {
    assert.ok(calls < 200, 'read_tool_output never ended');
    const outcome = await registry.execute({ id: `r${calls}`, name: 'read_tool_output', input: request as never }, { contextId: 'ctx' });
    assert.equal(outcome.isError, undefined, outcome.content);
    rebuilt += outcome.content.slice(outcome.content.indexOf('\n') + 1);
    request = nextArgumentsOf(outcome.content);
  }
  return rebuilt;
}

function assertEveryDepartureListed(original: readonly CanonicalMessage[], compacted: readonly CanonicalMessage[], receipts: readonly CompactionReceipt[]): void {
  const kept = new Set(compacted);
  const departed = original.map((message, index) => ({ message, index })).filter(({ message }) => !kept.has(message));
  assert.ok(departed.length > 0, 'the fixture must compact something');
  const listed = new Set(receipts.map((receipt) => receipt.item.index));
  for (const { message, index } of departed) {
    assert.ok(listed.has(index), `message ${index} (${message.role}) left without a receipt`);
    const first = receipts.find((receipt) => receipt.item.index === index)!;
    assert.equal(first.tokensBefore, estimator.countMessage(message), `tokens before of message ${index}`);
    if (message.role === 'tool') assert.deepEqual(first.item, { kind: 'tool-result', index, toolName: message.toolName, toolCallId: message.toolCallId });
    if (message.role === 'assistant') assert.deepEqual(first.item, { kind: 'tool-call', index, calls: message.toolCalls!.map((call) => ({ toolName: call.name, toolCallId: call.id })) });
  }
  // Nothing is listed that did not leave.
  for (const receipt of receipts) assert.ok(!kept.has(original[receipt.item.index]!) || receipt.action === 'summarized', `receipt for kept message ${receipt.item.index}`);
}

test('receipts: masking lists every stored output it replaced, with tokens before and after, and each reads back byte-exact', async () => {
  const { store, history } = await fixture(8);
  const compactor = new DefaultHistoryCompactor();
  const result = await compactor.compact({ contextId: 'ctx', history, reason: 'token-pressure', targetHistoryTokens: 4_000, estimator, signal: new AbortController().signal });
  assert.equal(result.changed, true);
  const receipts = result.trace.receipts!;
  assertEveryDepartureListed(history, result.history, receipts);
  assert.equal(receipts.length, result.trace.compactedOutputRefs.length);
  const registry = new ToolRegistry();
  registry.register(createReadToolOutputTool({ store, maxChars: 2_000 }));
  for (const receipt of receipts) {
    assert.equal(receipt.action, 'masked');
    assert.equal(receipt.tokensAfter, estimator.countMessage(result.history[receipt.item.index]!));
    assert.ok(receipt.tokensAfter < receipt.tokensBefore);
    assert.equal(receipt.location.kind, 'output-ref');
    const body = (history[receipt.item.index] as CanonicalMessage & { role: 'tool' }).content;
    assert.equal(await readBack(registry, receipt.retrieve!), body, `${receipt.retrieve} reads back the body byte-exact`);
  }
  const saved = receipts.reduce((sum, receipt) => sum + receipt.tokensBefore - receipt.tokensAfter, 0);
  assert.equal(result.trace.estimatedTokensBefore! - result.trace.estimatedTokensAfter!, saved, 'the receipts account for every token saved');
});

test('receipts: a checkpoint lists every message it summarized, and each stored result it held still reads back', async () => {
  const { store, history } = await fixture(10);
  const compactor = new DefaultHistoryCompactor({ summarizer: scriptedSummarizer });
  const result = await compactor.compact({ contextId: 'ctx', history, reason: 'forced', targetHistoryTokens: 3_000, estimator, signal: new AbortController().signal });
  assert.ok(result.trace.summarizedMessages > 0, 'the fixture must summarize');
  const receipts = result.trace.receipts!;
  assertEveryDepartureListed(history, result.history, receipts);
  const summarized = receipts.filter((receipt) => receipt.action === 'summarized');
  assert.equal(summarized.length, result.trace.summarizedMessages);
  const registry = new ToolRegistry();
  registry.register(createReadToolOutputTool({ store, maxChars: 2_000 }));
  for (const receipt of summarized) {
    assert.equal(receipt.location.kind, 'checkpoint');
    assert.equal(receipt.tokensAfter, 0);
    if (receipt.item.kind === 'tool-result') {
      const body = (history.find((message) => message.role === 'tool' && message.toolCallId === (receipt.item as { toolCallId: string }).toolCallId) as CanonicalMessage & { role: 'tool' }).content;
      assert.equal(await readBack(registry, receipt.retrieve!), body);
    } else assert.equal(receipt.retrieve, null);
  }
});

test('receipts: a turn whose window drops outputs has a receipt per dropped output listed in <earlier_outputs>, and each reads back byte-exact', async () => {
  const { store, history } = await fixture(10);
  const registry = new ContextContributorRegistry();
  const assembler = createContextAssembler({ registry, budget: resolveContextBudget({ modelMaxTokens: 3_000, outputReserveTokens: 1_000 }) });
  const { trace } = await assembler.assemble({ contextId: 'ctx', turn: 1, history, tools: [] });
  // What the window dropped, read independently of the receipts: the stored results whose call is not in what was sent.
  const sent = new Set(trace.llmInput.messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  const dropped = history.filter((message): message is CanonicalMessage & { role: 'tool' } => message.role === 'tool' && !sent.has(message.toolCallId));
  assert.ok(dropped.length >= 3, `the fixture must cut the window (${dropped.length} dropped)`);
  const listing = trace.llmInput.messages.find((message) => message.role === 'user' && message.content.startsWith('<earlier_outputs'));
  assert.ok(listing, 'the window lists its dropped outputs');
  const receipts = trace.renderedContext!.windowReceipts ?? [];
  assert.deepEqual(receipts.map((receipt) => receipt.item.kind === 'tool-result' && receipt.item.toolCallId), dropped.map((message) => message.toolCallId), 'one receipt per dropped output, in history order');
  const toolRegistry = new ToolRegistry();
  toolRegistry.register(createReadToolOutputTool({ store, maxChars: 2_000 }));
  for (const [at, receipt] of receipts.entries()) {
    const message = dropped[at]!;
    assert.equal(receipt.action, 'windowed');
    assert.deepEqual(receipt.item, { kind: 'tool-result', index: receipt.item.index, toolName: 'search_flights', toolCallId: message.toolCallId });
    assert.deepEqual(receipt.location, { kind: 'output-index', ref: message.outputRef!.id });
    assert.ok((listing.content as string).includes(`ref="${message.outputRef!.id}"`), 'the reference is the one the index lists');
    // Its tokens as the window counted it: the composed view (a preview of the stored body), never more than the whole body.
    assert.ok(receipt.tokensBefore > 0 && receipt.tokensBefore <= estimator.countMessage(message), `tokens of ${message.toolCallId}: ${receipt.tokensBefore}`);
    assert.equal(receipt.tokensAfter, 0);
    assert.equal(receipt.retrieve, `read_tool_output({"ref":"${message.outputRef!.id}"})`);
    assert.equal(await readBack(toolRegistry, receipt.retrieve!), message.content, `${receipt.retrieve} reads back the body byte-exact`);
    assert.match(describeReceipt(receipt), new RegExp(`tool result search_flights \\(${message.toolCallId}\\) windowed: \\d+ -> 0 tokens, in ref .+, listed in <earlier_outputs>; back: read_tool_output`));
  }
  // A turn whose window keeps everything records none.
  const whole = await createContextAssembler({ registry, budget: resolveContextBudget({ modelMaxTokens: 200_000, outputReserveTokens: 2_000 }) }).assemble({ contextId: 'ctx-whole', turn: 1, history, tools: [] });
  assert.equal(whole.trace.renderedContext!.windowReceipts, undefined);
});

test('receipts: over a run whose state is carried turn to turn, each output gets its window receipt once, at the turn it left the window', async () => {
  const store = memoryOutputStore();
  const registry = new ContextContributorRegistry();
  const assembler = createContextAssembler({ registry, budget: resolveContextBudget({ modelMaxTokens: 7_000, outputReserveTokens: 1_000 }) });
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Find the cheapest flight.' }];
  let state: ContextState | undefined;
  let listedBefore = new Set<string>();
  const receipted: string[] = [];
  for (let step = 1; step <= 60; step += 1) {
    const call = { id: `c${step}`, name: 'search_flights' };
    history.push({ role: 'assistant', content: `step ${step}`, toolCalls: [{ ...call, input: { step } }] });
    history.push(await storeToolResult({ store, contextId: 'run', call, outcome: { content: Array.from({ length: 120 }, (_, row) => `flight HAT${step}${row} seats=${row % 13}`).join('\n') } }));
    const turn = await assembler.assemble({ contextId: 'run', turn: step, history, tools: [], state });
    state = turn.state;
    // Independently: what the index lists now and did not list last turn left the window at this turn.
    const listing = turn.trace.llmInput.messages.find((message) => message.role === 'user' && message.content.startsWith('<earlier_outputs'));
    const listed = new Set(listing?.role === 'user' ? Array.from(listing.content.matchAll(/ref="([^"]+)"/g), (match) => match[1]!) : []);
    const left = [...listed].filter((ref) => !listedBefore.has(ref));
    const refs = (turn.trace.renderedContext!.windowReceipts ?? []).map((receipt) => (receipt.location as { ref: string }).ref);
    assert.deepEqual(refs, left, `turn ${step}: a receipt for each output that left at this turn, none for those that left before`);
    receipted.push(...refs);
    listedBefore = listed;
  }
  assert.ok(receipted.length >= 5, `the run must cut its window (${receipted.length} receipts)`);
  assert.equal(new Set(receipted).size, receipted.length, 'each output once');
});
