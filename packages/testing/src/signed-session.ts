// A run of many turns over a history with provider-signed reasoning, under
// pressure, for the tests of the signed-reasoning rule (test-only).
import assert from 'node:assert/strict';
import {
  createContextPipeline,
  isVerbatimSigned,
  resolveContextBudget,
  toOpenAIChat,
  type AssembledTurn,
  type AssistantMessage,
  type CanonicalMessage,
  type ContextState,
  type ReasoningPart,
  type StoredToolOutput,
  type Summarizer,
  type ToolOutputRef,
  type ToolOutputStore,
} from '@strata/context';
import { withCallIdSuffix } from './conversations.js';
import type { ProviderRules } from './shared-data.js';

/** A tool-output store of the port in memory, with ids in order (the real stores are in @strata/store). */
export function memoryOutputStore(): ToolOutputStore {
  const outputs = new Map<string, StoredToolOutput>();
  return {
    async put(output) {
      const ref: ToolOutputRef = { id: `out-${outputs.size + 1}`, chars: output.body.length, lines: output.body.split('\n').length, bytes: Buffer.byteLength(output.body) };
      outputs.set(ref.id, { ...output, ref, createdAt: '2026-01-01T00:00:00.000Z' });
      return ref;
    },
    async get(id) {
      return outputs.get(id);
    },
    async close() {},
  };
}

/** A deterministic summarizer: it writes the sections the instructions name, and depends only on the transcript, as a model would on a fixed seed. */
export const scriptedSummarizer: Summarizer = {
  async summarize({ transcript, instructions }) {
    const headings = instructions.split('\n').filter((line) => line.startsWith('## '));
    return headings.map((heading) => `${heading}\n${heading === '## Next step' ? 'Go on.' : `${transcript.length} messages before this point.`}`).join('\n\n');
  },
};

/** Whether the test's own reading says a message carries signed reasoning (independent of the rule's module). */
export function carriesSignature(message: CanonicalMessage): message is AssistantMessage {
  if (message.role !== 'assistant') return false;
  return (message.reasoning ?? []).some((part) => {
    const metadata = part.providerMetadata as { anthropic?: { signature?: unknown }; openai?: { itemId?: unknown } } | undefined;
    return typeof metadata?.anthropic?.signature === 'string' || typeof metadata?.openai?.itemId === 'string';
  });
}

/** What identifies a signed message's reasoning: its parts as JSON (signatures and item ids are unique per model output). */
export function signatureKey(message: AssistantMessage): string {
  return JSON.stringify(message.reasoning ?? []);
}

/** The message with its reasoning signed anew for `suffix` (so each repetition of a step is another model output), its call ids suffixed. */
function resigned(message: CanonicalMessage, suffix: string): CanonicalMessage {
  const renamed = withCallIdSuffix(message, suffix);
  if (!carriesSignature(renamed)) return renamed;
  const reasoning = renamed.reasoning!.map((part): ReasoningPart => {
    const metadata = part.providerMetadata as { anthropic?: { signature: string }; openai?: { itemId: string; reasoningEncryptedContent?: string } };
    if (metadata.anthropic) return { ...part, providerMetadata: { anthropic: { signature: `${metadata.anthropic.signature}${suffix}` } } };
    return { ...part, providerMetadata: { openai: { ...metadata.openai!, itemId: `${metadata.openai!.itemId}${suffix}` } } };
  });
  return { ...renamed, reasoning };
}

export interface SignedSessionTurn {
  readonly turn: number;
  readonly assembled: AssembledTurn;
  /** The latest signed assistant message of the canonical history after compaction that can go verbatim; undefined before there is one. */
  readonly latest: AssistantMessage | undefined;
  /** JSON of every signed message appended so far, by `signatureKey`. */
  readonly originals: ReadonlyMap<string, string>;
}

export interface SignedSessionOutcome {
  /** Turns whose history compaction changed, that a checkpoint summary shortened, that the window cut, that sent a masked result. */
  readonly compacted: number;
  readonly summarized: number;
  readonly cut: number;
  readonly masked: number;
  /** Turns that dropped a broken signed step whole. */
  readonly droppedSigned: number;
}

/**
 * Runs `turns` model turns at `cap` over `steps` (repeated, each time signed
 * anew with fresh call ids), with stored results, compaction (a scripted
 * summarizer when `summarize`) and the masked view, and checks in every
 * turn what the signed-reasoning rule promises: the latest signed message
 * of the canonical history is sent exactly once, byte-identical; every other
 * signed message sent is byte-identical to the one appended; a broken one
 * (`broken`: arguments that are not an object) is never sent and its drop is
 * reported; the provider-rules oracle (when given) finds nothing. `check`
 * adds the caller's checks of each turn (converted forms).
 */
export async function runSignedSession(options: {
  readonly task: string;
  readonly steps: readonly (readonly CanonicalMessage[])[];
  readonly turns: number;
  readonly cap: number;
  readonly summarize: boolean;
  readonly broken?: ReadonlySet<number>;
  readonly rules?: ProviderRules;
  readonly check?: (turn: SignedSessionTurn) => void | Promise<void>;
}): Promise<SignedSessionOutcome> {
  const contextId = 'signed';
  const store = memoryOutputStore();
  const { assembler } = createContextPipeline({
    contextId,
    budget: resolveContextBudget({ inputCapTokens: options.cap }),
    goal: options.task,
    summarizer: options.summarize ? scriptedSummarizer : undefined,
    outputStore: store,
    now: () => 0,
  });
  const originals = new Map<string, string>();
  const brokenKeys = new Set<string>();
  let session: CanonicalMessage[] = [{ role: 'user', content: options.task }];
  let state: ContextState | undefined;
  const outcome = { compacted: 0, summarized: 0, cut: 0, masked: 0, droppedSigned: 0 };
  for (let turn = 1; turn <= options.turns; turn += 1) {
    const assembled = await assembler.assemble({ contextId, turn, history: session, tools: [], state });
    const where = `cap ${options.cap}, turn ${turn}`;
    const sent = assembled.input.messages;
    // The latest signed message that can go out as it is (one with neither text nor calls, or broken on purpose, is dropped whole by the rule).
    const latest = assembled.history.findLast((message): message is AssistantMessage => isVerbatimSigned(message) && carriesSignature(message) && !brokenKeys.has(signatureKey(message)));
    if (latest) {
      const json = JSON.stringify(latest);
      assert.equal(json, originals.get(signatureKey(latest)), `${where}: the canonical history keeps the latest signed message as appended`);
      assert.equal(sent.filter((message) => JSON.stringify(message) === json).length, 1, `${where}: the latest signed message is sent once, byte-identical`);
    }
    for (const message of sent) {
      if (!carriesSignature(message)) continue;
      const key = signatureKey(message);
      assert.ok(!brokenKeys.has(key), `${where}: a signed message that cannot go as it is is never sent, edited or not`);
      assert.equal(JSON.stringify(message), originals.get(key), `${where}: a signed message is sent byte-identical to the one appended`);
    }
    const brokenInHistory = assembled.history.some((message) => carriesSignature(message) && brokenKeys.has(signatureKey(message)));
    const dropped = assembled.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_SIGNED_STEP_DROPPED');
    assert.equal(dropped, brokenInHistory, `${where}: a broken signed step in the history is dropped with a diagnostic`);
    if (options.rules) {
      assert.deepEqual(options.rules.violations(toOpenAIChat(sent), 'openai'), [], `${where}: OpenAI rules`);
      assert.deepEqual(options.rules.violations(toOpenAIChat(sent), 'anthropic'), [], `${where}: Anthropic rules`);
    }
    await options.check?.({ turn, assembled, latest, originals });

    if (assembled.historyChanged) outcome.compacted += 1;
    if (assembled.trace.compaction.summarizedMessages > 0) outcome.summarized += 1;
    if (assembled.trace.renderedContext!.window.droppedUnits > 0) outcome.cut += 1;
    if (sent.some((message) => message.role === 'tool' && message.masked === true)) outcome.masked += 1;
    if (dropped) outcome.droppedSigned += 1;

    // The session as a store keeps it: a JSON copy, so no object is shared between turns.
    state = JSON.parse(JSON.stringify(assembled.state)) as ContextState;
    const stepIndex = (turn - 1) % options.steps.length;
    const appended: CanonicalMessage[] = [];
    for (const original of options.steps[stepIndex]!) {
      let message = resigned(original, `-${turn}`);
      if (carriesSignature(message)) {
        if (options.broken?.has(stepIndex) && message.toolCalls?.length) {
          message = { ...message, toolCalls: message.toolCalls.map((call, index) => (index === 0 ? { ...call, input: `{"query": "unfinished` } : call)) };
          brokenKeys.add(signatureKey(message));
        }
        originals.set(signatureKey(message), JSON.stringify(message));
      }
      if (message.role === 'tool' && message.content.length >= 1_024) {
        message = { ...message, outputRef: await store.put({ contextId, toolCallId: message.toolCallId, toolName: message.toolName, body: message.content }) };
      }
      appended.push(message);
    }
    session = JSON.parse(JSON.stringify([...assembled.history, ...appended])) as CanonicalMessage[];
  }
  return outcome;
}

/** The steps of a history: each assistant message with the messages after it up to the next one (system messages left out). */
export function stepsOf(history: readonly CanonicalMessage[]): CanonicalMessage[][] {
  const steps: CanonicalMessage[][] = [];
  for (const message of history.slice(history.findIndex((entry) => entry.role === 'assistant'))) {
    if (message.role === 'assistant' || steps.length === 0) steps.push([message]);
    else if (message.role !== 'system') steps.at(-1)!.push(message);
  }
  return steps.filter((step) => step.length > 0 && step[0]!.role === 'assistant');
}
