import { CHECKPOINT_INSTRUCTIONS, CHECKPOINT_SECTIONS, resolveContextConfiguration, toOpenAIChat, type AssistantMessage, type CanonicalHistory } from '@strata/context';
import { DELEGATE_TOOL_NAME } from '@strata/agent';
import type { ModelClient, ModelEvent } from '@strata/model';
import pg from 'pg';
import { APPROVAL_TOOL_NAME } from '../approval-tool.js';
import type { ServiceCatalog, ServiceTool } from '../service-catalog.js';
import type { VirtualClock } from './virtual-clock.js';

/**
 * A catalog for the service's tests and benchmark: a deterministic model (a
 * function of the history, so a restarted worker answers as the dead one
 * would) and tools that count their side effects in PostgreSQL.
 *
 * Every model call and tool attempt adds an `attempt` row; a tool's effect is
 * written once per idempotency key (`effect`). Every model input is kept in
 * OpenAI chat shape (`inputs`) for the provider-rules oracle.
 *
 * Prompts name their script: `steps <tag> <n>` calls `record_step` n times,
 * one per turn, then answers; `approve <tag>` asks for approval, then
 * answers; `slow <tag>` calls `wait_for_cancel`, which holds until aborted;
 * `delegate <tag> <n>` delegates `steps <tag>-sub <n>` to a sub-agent, then
 * answers; `logs <tag> <n>` reads n parts of a log (0.5-10 KB each, the
 * same bytes for the same part) one per turn, then answers: at a small
 * window (`windowTokens`) its runs compact, mask and cut the window. A
 * summary request is answered with a checkpoint made from the transcript
 * alone. `leak <tag>` calls `leak_output`, `leak_error` and `leak_throw`
 * (which print or throw `leaks.text`) in one step, its text and arguments
 * quoting `leaks.quotes`, then answers quoting the last of them.
 *
 * Profiles: `steps`, `approvals`, `slow`; `delegates` (its sub-agent is
 * `steps`); `timed` (`steps` with a run deadline of `TIMED_RUN_TIMEOUT_MS`);
 * `logs`; `leaks` (the leaking tools).
 */
export interface ScriptedCatalogOptions {
  readonly pool: pg.Pool;
  /** Schema of the `attempts`, `effects` and `inputs` tables (see `createEffectTables`). */
  readonly schema: string;
  /** How long `record_step` works before its effect, so a test can kill a worker mid-step. Default 0. */
  readonly toolDelayMs?: number;
  /** A virtual clock every model call moves `modelCallMs` forward (the time the call "takes"). Default: none. */
  readonly clock?: VirtualClock;
  readonly modelCallMs?: number;
  /** The context window of every run. Default 32,000 tokens. */
  readonly windowTokens?: number;
  /** What the `leaks` profile's tools print and its model quotes (the test's credentials). Default: nothing secret. */
  readonly leaks?: ScriptedLeaks;
}

/**
 * Part `part` of the scripted log, a function of the part alone: 3-10 KB,
 * and every third part about 500 characters (a preview saves little of it,
 * so the masked view shows it whole until the context reaches capacity).
 */
export function logPart(part: number): string {
  const lines: string[] = [];
  for (let line = 0; line < (part % 3 === 0 ? 6 : 40 + ((part * 37) % 90)); line += 1) lines.push(`[part ${part} line ${line}] worker-${(part + line) % 7} handled request ${part * 1_000 + line} in ${(part * 13 + line * 7) % 500} ms`);
  return lines.join('\n');
}

/** The credentials a `leak` script prints (every tool) and quotes (the model's text, a call's arguments, the answer: three quotes). */
export interface ScriptedLeaks {
  readonly text: string;
  readonly quotes: readonly [string, string, string];
}

/** Printed beside the credentials by the `leaks` tools: found in the stores, it shows a search reads what was stored. */
export const LEAK_CANARY = 'canary-8d2b7e';

/** The `timed` profile's run deadline, in the clock's milliseconds. */
export const TIMED_RUN_TIMEOUT_MS = 2_500;

export async function createEffectTables(pool: pg.Pool, schema: string): Promise<void> {
  const quoted = pg.escapeIdentifier(schema);
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${quoted}.attempts (kind text NOT NULL, key text NOT NULL, pid integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${quoted}.effects (key text PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${quoted}.inputs (key text NOT NULL, messages jsonb NOT NULL)`);
}

export function createScriptedCatalog(options: ScriptedCatalogOptions): ServiceCatalog {
  const schema = pg.escapeIdentifier(options.schema);
  const attempt = (kind: string, key: string) => options.pool.query(`INSERT INTO ${schema}.attempts (kind, key, pid) VALUES ($1, $2, $3)`, [kind, key, process.pid]);
  const recordStep: ServiceTool = {
    name: 'record_step',
    description: 'Records one step of the task.',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
    async execute(input, context) {
      await attempt('tool', context.idempotencyKey);
      await abortableDelay(options.toolDelayMs ?? 0, context.signal);
      await options.pool.query(`INSERT INTO ${schema}.effects (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`, [context.idempotencyKey]);
      return { content: `recorded step ${(input as { n: number }).n}` };
    },
  };
  const readLog: ServiceTool = {
    name: 'read_log',
    description: 'Reads one part of the service log.',
    parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'], additionalProperties: false },
    async execute(input, context) {
      await attempt('tool', context.idempotencyKey);
      return { content: logPart((input as { part: number }).part) };
    },
  };
  const waitForCancel: ServiceTool = {
    name: 'wait_for_cancel',
    description: 'Works until the run is cancelled.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    async execute(_input, context) {
      await attempt('tool', context.idempotencyKey);
      await abortableDelay(600_000, context.signal);
      return { content: 'finished' };
    },
  };
  const leaks = options.leaks ?? { text: 'nothing secret', quotes: ['q1', 'q2', 'q3'] };
  const leaky = (name: string, execute: () => { content: string; isError?: boolean }): ServiceTool => ({
    name,
    description: 'Prints its configuration.',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, additionalProperties: false },
    execute,
  });
  const leakTools = [
    leaky('leak_output', () => ({ content: `${LEAK_CANARY}\n${leaks.text}` })),
    leaky('leak_error', () => ({ content: `request failed ${LEAK_CANARY}\n${leaks.text}`, isError: true })),
    leaky('leak_throw', () => {
      throw new Error(`upstream refused ${LEAK_CANARY}: ${leaks.text}`);
    }),
  ];
  const model: ModelClient = {
    provider: 'scripted',
    modelId: 'scripted-service',
    stream: (request) => scriptedTurn(request.messages, leaks, async (key, messages) => {
      await attempt('model', key);
      options.clock?.advance(options.modelCallMs ?? 0);
      await options.pool.query(`INSERT INTO ${schema}.inputs (key, messages) VALUES ($1, $2)`, [key, JSON.stringify(toOpenAIChat(messages))]);
    }, request.system),
  };
  return {
    profiles: {
      steps: { profile: { id: 'steps', sections: { identity: 'You record steps.' } }, tools: [recordStep] },
      approvals: { profile: { id: 'approvals', sections: { identity: 'You ask before acting.' } }, approvals: true },
      slow: { profile: { id: 'slow', sections: { identity: 'You work slowly.' } }, tools: [waitForCancel] },
      delegates: { profile: { id: 'delegates', sections: { identity: 'You hand work to a helper.' } }, subagent: 'steps' },
      timed: { profile: { id: 'timed', sections: { identity: 'You record steps on the clock.' }, runTimeoutMs: TIMED_RUN_TIMEOUT_MS }, tools: [recordStep] },
      logs: { profile: { id: 'logs', sections: { identity: 'You read logs and report.' }, maxTurns: 60 }, tools: [readLog] },
      leaks: { profile: { id: 'leaks', sections: { identity: 'You read configurations.' } }, tools: leakTools },
    },
    models: ['scripted-service'],
    model: () => model,
    configuration: resolveContextConfiguration({}, { modelContextTokens: options.windowTokens ?? 32_000 }),
  };
}

/** The scripted answer to a history: a function of it alone. */
async function* scriptedTurn(messages: CanonicalHistory, leaks: ScriptedLeaks, record: (key: string, messages: CanonicalHistory) => Promise<void>, system?: string): AsyncIterable<ModelEvent> {
  if (system === CHECKPOINT_INSTRUCTIONS) {
    yield* answer({ role: 'assistant', content: checkpointOf(String(messages.at(-1)?.content ?? '')) }, messages);
    return;
  }
  const prompt = messages.find((message) => message.role === 'user' && /^(steps|approve|slow|delegate|logs|leak) /.test(String(message.content)))?.content;
  const [script = '', tag = 'untagged', count = '0'] = String(prompt ?? '').trim().split(/\s+/);
  const answered = messages.filter((message) => message.role === 'assistant').length;
  const results = messages.filter((message) => message.role === 'tool').length;
  // A log run is keyed by the part it asks for next: compaction leaves fewer answers in the input than turns made.
  await record(`${tag}:${script === 'logs' ? lastPart(messages, tag) + 1 : answered + 1}`, messages);
  let message: AssistantMessage;
  if (script === 'steps' && results < Number(count)) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_${results + 1}`, name: 'record_step', input: { n: results + 1 } }] };
  } else if (script === 'approve' && results === 0) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_approval`, name: APPROVAL_TOOL_NAME, input: { question: `may I finish ${tag}?` } }] };
  } else if (script === 'delegate' && results === 0) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_delegate`, name: DELEGATE_TOOL_NAME, input: { task: `steps ${tag}-sub ${count}` } }] };
  } else if (script === 'logs' && lastPart(messages, tag) < Number(count)) {
    // The newest step is always in the input, whatever compaction did: the next part follows the last one read.
    const part = lastPart(messages, tag) + 1;
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_${part}`, name: 'read_log', input: { part } }] };
  } else if (script === 'leak' && results === 0) {
    message = {
      role: 'assistant',
      content: `Reading with ${leaks.quotes[0]} first.`,
      toolCalls: [
        { id: `call_${tag}_output`, name: 'leak_output', input: { key: leaks.quotes[1] } },
        { id: `call_${tag}_error`, name: 'leak_error', input: {} },
        { id: `call_${tag}_throw`, name: 'leak_throw', input: {} },
      ],
    };
  } else if (script === 'leak') {
    message = { role: 'assistant', content: `done ${tag}; the token was ${leaks.quotes[2]}` };
  } else if (script === 'slow' && results === 0) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_slow`, name: 'wait_for_cancel', input: {} }] };
  } else {
    message = { role: 'assistant', content: `done ${tag}` };
  }
  yield* answer(message, messages);
}

/** The highest log part the input shows a call for (0: none). */
function lastPart(messages: CanonicalHistory, tag: string): number {
  let last = 0;
  for (const message of messages) {
    for (const call of message.role === 'assistant' ? message.toolCalls ?? [] : []) {
      const match = new RegExp(`^call_${tag}_(\\d+)$`).exec(call.id);
      if (match) last = Math.max(last, Number(match[1]));
    }
  }
  return last;
}

/**
 * A checkpoint with every section, a function of the transcript alone. For a
 * run tagged `cut-…` it is larger than the transcript, so the compactor
 * rejects it: only projections and the window keep that run in its cap.
 */
function checkpointOf(transcript: string): string {
  const parts = [...transcript.matchAll(/\[part (\d+) line 0\]/g)].map((match) => match[1]);
  if (/call_cut-/.test(transcript)) return CHECKPOINT_SECTIONS.map((name) => `## ${name}\n${transcript}`).join('\n\n');
  return CHECKPOINT_SECTIONS.map((name) => `## ${name}\n${name === 'Next step' ? 'Read the next part.' : `Read log parts ${parts.join(', ') || 'none'} (${transcript.length} characters).`}`).join('\n\n');
}

async function* answer(message: AssistantMessage, messages: CanonicalHistory): AsyncIterable<ModelEvent> {
  const usage = { inputTokens: 10 * messages.length, outputTokens: 5 };
  for (const call of message.toolCalls ?? []) yield { type: 'tool-call', toolCall: call };
  if (message.content !== '') yield { type: 'text-delta', text: message.content };
  yield { type: 'usage', usage };
  yield { type: 'finish', reason: (message.toolCalls ?? []).length > 0 ? 'tool-calls' : 'stop', message, usage, warnings: [] };
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
