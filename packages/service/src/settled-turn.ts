import type { SessionStore } from '@strata/context';

/** How a turn that the stored session shows as finished ended. */
export interface SettledTurn {
  /** `turn-end`: the step called tools, and the run goes on with the next turn. */
  readonly stopReason: 'completed' | 'turn-end';
  readonly text: string;
}

/**
 * Whether the turn that started at session version `startVersion` already
 * stored its step: its worker died after the agent stored the step and
 * before the turn's outcome was recorded. The store is the source of truth:
 * a version after `startVersion` that is not a compaction is the turn's step.
 * A turn whose step is stored is not run again (its recorded model turn
 * would be appended twice); it ended the run when its last message is an
 * answer without tool calls. Undefined: the turn has not stored its step
 * (compactions alone do not count), so it is replayed.
 */
export async function settledTurn(options: { readonly sessions: SessionStore; readonly contextId: string; readonly startVersion: number }): Promise<SettledTurn | undefined> {
  const { sessions, contextId, startVersion } = options;
  const current = await sessions.load(contextId);
  if (current === undefined || current.version <= startVersion) return undefined;
  for (let version = startVersion + 1; version <= current.version; version += 1) {
    const stored = version === current.version ? current : await sessions.loadVersion(contextId, version);
    if (stored !== undefined && stored.compaction === undefined) {
      const last = current.messages.at(-1);
      const answered = last?.role === 'assistant' && (last.toolCalls ?? []).length === 0;
      return answered ? { stopReason: 'completed', text: last.content } : { stopReason: 'turn-end', text: '' };
    }
  }
  return undefined;
}
