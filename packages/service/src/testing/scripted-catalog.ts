import { resolveContextConfiguration, toOpenAIChat, type AssistantMessage, type CanonicalHistory } from '@strata/context';
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
 * answers; `leak <tag>` calls `leak_output`, `leak_error` and `leak_throw`
 * (which print or throw `leaks.text`) in one step, its text and arguments
 * quoting `leaks.quotes`, then answers quoting the last of them.
 *
 * Profiles: `steps`, `approvals`, `slow`; `delegates` (its sub-agent is
 * `steps`); `timed` (`steps` with a run deadline of `TIMED_RUN_TIMEOUT_MS`);
 * `leaks` (the leaking tools).
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
  /** What the `leaks` profile's tools print and its model quotes (the test's credentials). Default: nothing secret. */
  readonly leaks?: ScriptedLeaks;
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
    }),
  };
  return {
    profiles: {
      steps: { profile: { id: 'steps', sections: { identity: 'You record steps.' } }, tools: [recordStep] },
      approvals: { profile: { id: 'approvals', sections: { identity: 'You ask before acting.' } }, approvals: true },
      slow: { profile: { id: 'slow', sections: { identity: 'You work slowly.' } }, tools: [waitForCancel] },
      delegates: { profile: { id: 'delegates', sections: { identity: 'You hand work to a helper.' } }, subagent: 'steps' },
      timed: { profile: { id: 'timed', sections: { identity: 'You record steps on the clock.' }, runTimeoutMs: TIMED_RUN_TIMEOUT_MS }, tools: [recordStep] },
      leaks: { profile: { id: 'leaks', sections: { identity: 'You read configurations.' } }, tools: leakTools },
    },
    models: ['scripted-service'],
    model: () => model,
    configuration: resolveContextConfiguration({}, { modelContextTokens: 32_000 }),
  };
}

/** The scripted answer to a history: a function of it alone. */
async function* scriptedTurn(messages: CanonicalHistory, leaks: ScriptedLeaks, record: (key: string, messages: CanonicalHistory) => Promise<void>): AsyncIterable<ModelEvent> {
  const prompt = messages.find((message) => message.role === 'user' && /^(steps|approve|slow|delegate|leak) /.test(String(message.content)))?.content;
  const [script = '', tag = 'untagged', count = '0'] = String(prompt ?? '').trim().split(/\s+/);
  const answered = messages.filter((message) => message.role === 'assistant').length;
  const results = messages.filter((message) => message.role === 'tool').length;
  await record(`${tag}:${answered + 1}`, messages);
  let message: AssistantMessage;
  if (script === 'steps' && results < Number(count)) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_${results + 1}`, name: 'record_step', input: { n: results + 1 } }] };
  } else if (script === 'approve' && results === 0) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_approval`, name: APPROVAL_TOOL_NAME, input: { question: `may I finish ${tag}?` } }] };
  } else if (script === 'delegate' && results === 0) {
    message = { role: 'assistant', content: '', toolCalls: [{ id: `call_${tag}_delegate`, name: DELEGATE_TOOL_NAME, input: { task: `steps ${tag}-sub ${count}` } }] };
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
