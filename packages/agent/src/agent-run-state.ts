import type { CanonicalHistory, CanonicalMessage, SessionStore } from '@strata/context';
import type { ModelUsage } from '@strata/model';
import type { SkillReference } from './skill-reference-contributor.js';

/** Sums usage figures; a figure neither side reported stays absent. */
function addUsage(total: ModelUsage, next: ModelUsage): ModelUsage {
  const keys = ['inputTokens', 'outputTokens', 'cachedInputTokens', 'cacheWriteInputTokens', 'reasoningTokens'] as const;
  const sum: Record<string, number> = {};
  for (const key of keys) {
    if (total[key] !== undefined || next[key] !== undefined) sum[key] = (total[key] ?? 0) + (next[key] ?? 0);
  }
  return sum;
}

/**
 * The mutable state of one run, in one place: the canonical history, the
 * turn counter, usage and skill references. Every change to the history is
 * persisted to the session store before the run goes on.
 */
export class AgentRunState {
  readonly contextId: string;
  private currentHistory: CanonicalHistory;
  private turnNumber = 0;
  private totalUsage: ModelUsage = {};
  private readonly skills: SkillReference[] = [];
  private readonly sessionStore: SessionStore | undefined;

  constructor(options: { contextId: string; history: CanonicalHistory; sessionStore?: SessionStore }) {
    this.contextId = options.contextId;
    this.currentHistory = options.history;
    this.sessionStore = options.sessionStore;
  }

  get history(): CanonicalHistory {
    return this.currentHistory;
  }

  get turn(): number {
    return this.turnNumber;
  }

  get usage(): ModelUsage {
    return this.totalUsage;
  }

  get skillReferences(): readonly SkillReference[] {
    return this.skills;
  }

  nextTurn(): number {
    this.turnNumber += 1;
    return this.turnNumber;
  }

  addUsage(usage: ModelUsage): void {
    this.totalUsage = addUsage(this.totalUsage, usage);
  }

  addSkillReference(reference: SkillReference): void {
    this.skills.push(reference);
  }

  async append(messages: readonly CanonicalMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.sessionStore?.append(this.contextId, messages);
    this.currentHistory = [...this.currentHistory, ...messages];
  }

  /** Adopts a compacted canonical history; the session records it as a new version. */
  async replace(history: CanonicalHistory, reason: string): Promise<void> {
    if (history === this.currentHistory) return;
    if (this.sessionStore) {
      const previous = await this.sessionStore.load(this.contextId);
      await this.sessionStore.replace(this.contextId, history, { reason, replacedFromVersion: previous?.version ?? 0, replacedMessages: this.currentHistory.length });
    }
    this.currentHistory = history;
  }
}
