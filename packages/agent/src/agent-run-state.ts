import type { CanonicalHistory, CanonicalMessage, ContextState, JsonValue, SessionState, SessionStore, SessionVersion } from '@strata/context';
import type { ModelUsage } from '@strata/model';
import { SessionConflictError } from '@strata/store';

/** Writes tried against a session that other writers keep changing before the run gives up. */
export const SESSION_WRITE_ATTEMPTS = 5;

/** The compaction reason recorded when foreign messages are moved after the run's step. */
export const FOREIGN_AFTER_STEP_REASON = 'foreign-messages-after-step';

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
 * The mutable state of one run, in one place: the canonical history and the
 * session version it was read from or written as, the context state the
 * last assembly returned, the turn counter and usage. The structured lanes
 * live beside it (`RunLanes`); their snapshot (`runState`) is written with
 * every version, with the context state, so a run resumed in any process
 * continues from exactly what this one would.
 *
 * Every write names the version the run last saw, so another writer's
 * messages are never dropped or split: a step (an assistant message with
 * all its results) is written whole, and messages another writer appended
 * meanwhile are placed after it; a compaction made over an old version is
 * refused and made again over the new one.
 */
export class AgentRunState {
  readonly contextId: string;
  private currentHistory: CanonicalHistory;
  private sessionVersion: number;
  private turnNumber: number;
  private totalUsage: ModelUsage = {};
  private foreign = 0;
  private readonly sessionStore: SessionStore | undefined;
  private context: ContextState | undefined;
  /** The stored session's run state, as loaded (the lanes restore from it). */
  readonly storedRunState: JsonValue | undefined;
  private readonly runState: (() => JsonValue) | undefined;

  constructor(options: {
    contextId: string;
    history?: CanonicalHistory;
    version?: number;
    firstTurn?: number;
    sessionStore?: SessionStore;
    /** The session state the history was stored with. */
    state?: SessionState;
    /** The run's own state (its lanes) as it is now, written with each version. */
    runState?: () => JsonValue;
  }) {
    this.contextId = options.contextId;
    this.currentHistory = options.history ?? [];
    this.sessionVersion = options.version ?? 0;
    this.turnNumber = (options.firstTurn ?? 1) - 1;
    this.sessionStore = options.sessionStore;
    this.context = options.state?.context;
    this.storedRunState = options.state?.run;
    this.runState = options.runState;
  }

  /** The state of a stored session, read without writing anything. */
  static async load(options: {
    contextId: string;
    sessionStore?: SessionStore;
    firstTurn?: (history: CanonicalHistory) => Promise<number> | number;
    runState?: () => JsonValue;
  }): Promise<AgentRunState> {
    const stored = await options.sessionStore?.load(options.contextId);
    const history = stored?.messages ?? [];
    return new AgentRunState({
      contextId: options.contextId,
      history,
      version: stored?.version ?? 0,
      firstTurn: (await options.firstTurn?.(history)) ?? 1,
      sessionStore: options.sessionStore,
      state: stored?.state,
      runState: options.runState,
    });
  }

  /** The context state the last assembly returned (or the stored session's): what the next assembly is given. */
  get contextState(): ContextState | undefined {
    return this.context;
  }

  /** Takes an assembly's context state; it is written with the next version. */
  adoptContextState(state: ContextState | undefined): void {
    this.context = state;
  }

  /** What every write records beside the history. */
  private sessionState(): SessionState {
    const run = this.runState?.();
    return { ...(this.context === undefined ? {} : { context: this.context }), ...(run === undefined ? {} : { run }) };
  }

  get history(): CanonicalHistory {
    return this.currentHistory;
  }

  /** The session version the history corresponds to (0: nothing stored). */
  get version(): number {
    return this.sessionVersion;
  }

  get turn(): number {
    return this.turnNumber;
  }

  /** Messages other writers added to the session during this run. */
  get foreignMessages(): number {
    return this.foreign;
  }

  get usage(): ModelUsage {
    return this.totalUsage;
  }

  nextTurn(): number {
    this.turnNumber += 1;
    return this.turnNumber;
  }

  addUsage(usage: ModelUsage): void {
    this.totalUsage = addUsage(this.totalUsage, usage);
  }

  /**
   * Appends one whole step. When another writer appended since the run's
   * version, its messages are placed after the step (recorded as a new
   * version), so nothing comes between a call and its result and the model
   * saw everything that precedes its own message.
   */
  async commitStep(step: readonly CanonicalMessage[]): Promise<void> {
    if (step.length === 0) return;
    const store = this.sessionStore;
    if (!store) {
      this.currentHistory = [...this.currentHistory, ...step];
      return;
    }
    let conflict: unknown;
    for (let attempt = 1; attempt <= SESSION_WRITE_ATTEMPTS; attempt += 1) {
      try {
        const written = await store.append(this.contextId, step, { expectedVersion: this.sessionVersion, state: this.sessionState() });
        this.adopt([...this.currentHistory, ...step], written.version);
        return;
      } catch (error) {
        conflict = conflictOrThrow(error);
      }
      const { newest, foreign } = await this.newestAfterConflict(store);
      if (!newest || foreign === undefined) {
        // Another writer rewrote the history (its own compaction): the step goes after its newest version.
        this.adopt(newest?.messages ?? [], newest?.version ?? 0);
        continue;
      }
      const merged = [...this.currentHistory, ...step, ...foreign];
      try {
        const written = await store.replace(this.contextId, merged, { reason: FOREIGN_AFTER_STEP_REASON, replacedFromVersion: newest.version, replacedMessages: newest.messages.length }, { state: this.sessionState() });
        this.foreign += foreign.length;
        this.adopt(merged, written.version);
        return;
      } catch (error) {
        conflict = conflictOrThrow(error);
      }
    }
    throw conflict;
  }

  /**
   * Records a compacted history as a new version of the one the run holds.
   * When another writer appended meanwhile, the compaction is rebased (its
   * messages follow the compacted history; nothing is summarized again) and
   * recorded over the newest version; when another writer rewrote the
   * history, the newest stored history is taken as it is. Returns undefined
   * when the history was recorded as given; the conflict when the state
   * changed, and the caller assembles again so the model sees what the other
   * writer added.
   */
  async commitCompaction(history: CanonicalHistory, reason: string): Promise<SessionConflictError | undefined> {
    if (history === this.currentHistory) return undefined;
    const store = this.sessionStore;
    if (!store) {
      this.currentHistory = history;
      return undefined;
    }
    let compacted = history;
    let conflict: SessionConflictError | undefined;
    for (let attempt = 1; attempt <= SESSION_WRITE_ATTEMPTS; attempt += 1) {
      try {
        const written = await store.replace(this.contextId, compacted, { reason, replacedFromVersion: this.sessionVersion, replacedMessages: this.currentHistory.length }, { state: this.sessionState() });
        this.adopt(compacted, written.version);
        return compacted === history ? undefined : conflict;
      } catch (error) {
        conflict = conflictOrThrow(error);
      }
      const { newest, foreign } = await this.newestAfterConflict(store);
      if (!newest || foreign === undefined) {
        this.adopt(newest?.messages ?? [], newest?.version ?? 0);
        return conflict;
      }
      this.foreign += foreign.length;
      // Keep the run's own message objects where the stored history extends them.
      this.adopt([...this.currentHistory, ...foreign], newest.version);
      compacted = [...compacted, ...foreign];
    }
    throw conflict;
  }

  /** After a refused write: the newest stored version, and what another writer appended after the run's history (undefined when it rewrote it). */
  private async newestAfterConflict(store: SessionStore): Promise<{ newest: SessionVersion | undefined; foreign: CanonicalMessage[] | undefined }> {
    const newest = await store.load(this.contextId);
    return { newest, foreign: newest ? suffixAfter(this.currentHistory, newest.messages) : undefined };
  }

  private adopt(history: CanonicalHistory, version: number): void {
    this.currentHistory = history;
    this.sessionVersion = version;
  }
}

/** The messages of `newest` after `known`, or undefined when `known` is not its prefix. */
function suffixAfter(known: CanonicalHistory, newest: CanonicalHistory): CanonicalMessage[] | undefined {
  if (newest.length < known.length) return undefined;
  for (let index = 0; index < known.length; index += 1) {
    if (JSON.stringify(known[index]) !== JSON.stringify(newest[index])) return undefined;
  }
  return newest.slice(known.length);
}

/** A session conflict is the writer's to handle; anything else goes on up. */
function conflictOrThrow(error: unknown): SessionConflictError {
  if (!SessionConflictError.isInstance(error)) throw error;
  return error;
}
