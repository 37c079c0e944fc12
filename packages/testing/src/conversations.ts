import { fromShareGPT, fromSweAgentTrajectory, fromTauBenchRun } from '@strata/context';
import type { CanonicalMessage } from '@strata/context';
import { readSharedData } from './shared-data.js';

export interface SharedConversation {
  readonly source: string;
  readonly index: number;
  readonly messages: CanonicalMessage[];
}

export const SWE_AGENT_TRAJECTORIES = Object.freeze([
  'function_calling_simple.traj',
  'marshmallow-1867.function_calling_replace.traj',
  'marshmallow-1867.function_calling_replace_from_source.traj',
]);

function readJson(relativePath: string): unknown {
  const text = readSharedData(relativePath);
  return text === undefined ? undefined : JSON.parse(text);
}

/** tau-bench airline runs as canonical histories, or undefined when ../shared is absent. */
export function loadTauBenchConversations(): SharedConversation[] | undefined {
  const runs = readJson('tau-bench/gpt-4o-airline.json') as unknown[] | undefined;
  return runs?.map((run, index) => ({ source: 'tau-bench', index, messages: fromTauBenchRun(run) }));
}

export function loadSweAgentConversations(): SharedConversation[] | undefined {
  const conversations: SharedConversation[] = [];
  for (const [index, name] of SWE_AGENT_TRAJECTORIES.entries()) {
    const trajectory = readJson(`swe-agent/${name}`);
    if (trajectory === undefined) return undefined;
    conversations.push({ source: `swe-agent/${name}`, index, messages: fromSweAgentTrajectory(trajectory) });
  }
  return conversations;
}

export function loadShareGptConversations(name: 'glaive_toolcall_zh_demo.json' | 'glaive_toolcall_en_demo.json'): SharedConversation[] | undefined {
  const records = readJson(`llama-factory/${name}`) as Array<{ conversations: unknown }> | undefined;
  return records?.map((record, index) => ({ source: name, index, messages: fromShareGPT(record) }));
}

export function loadAlpacaConversations(name: 'alpaca_zh_demo.json' | 'alpaca_en_demo.json'): SharedConversation[] | undefined {
  const records = readJson(`llama-factory/${name}`) as Array<{ instruction: string; input: string; output: string }> | undefined;
  return records?.map((record, index) => ({
    source: name,
    index,
    messages: [
      { role: 'user', content: record.input ? `${record.instruction}\n${record.input}` : record.instruction },
      { role: 'assistant', content: record.output },
    ],
  }));
}

/** Every conversation of the estimator calibration set, or undefined when ../shared is absent. */
export function loadAllSharedConversations(): SharedConversation[] | undefined {
  const parts = [
    loadAlpacaConversations('alpaca_zh_demo.json'),
    loadAlpacaConversations('alpaca_en_demo.json'),
    loadShareGptConversations('glaive_toolcall_zh_demo.json'),
    loadShareGptConversations('glaive_toolcall_en_demo.json'),
    loadTauBenchConversations(),
    loadSweAgentConversations(),
  ];
  if (parts.some((part) => part === undefined)) return undefined;
  return parts.flatMap((part) => part!);
}

/**
 * A copy of a message whose tool call ids (or result's call id) carry
 * `suffix`: real steps repeated to build a longer history keep their ids
 * unique. Any other message is returned as it is.
 */
export function withCallIdSuffix(message: CanonicalMessage, suffix: string): CanonicalMessage {
  if (message.role === 'assistant' && message.toolCalls) return { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: `${call.id}${suffix}` })) };
  if (message.role === 'tool') return { ...message, toolCallId: `${message.toolCallId}${suffix}` };
  return message;
}
