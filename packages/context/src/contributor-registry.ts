import { ContextInputError } from './errors/context-input-error.js';
import type {
  ContextContribution,
  ContextContributor,
  ContextContributorFactory,
  ContextDiagnostic,
  ContextScope,
  ContributionRequest,
} from './contributor.js';
import { validateContribution } from './contribution-validation.js';
import { TimeLimitExceeded, withTimeout, type Timers } from './timers.js';

export type ContributorStatus = 'ok' | 'failed' | 'timed_out' | 'invalid' | 'aborted';

/** What one contributor did this turn; the trace keeps all of it. */
export interface ContributorRunRecord {
  readonly contributorId: string;
  readonly required: boolean;
  readonly status: ContributorStatus;
  readonly durationMs: number;
  /** The contribution exactly as returned, even when it was dropped. */
  readonly raw?: unknown;
  readonly error?: string;
}

/** Contributions that passed validation, in contributor id order. */
export interface ValidatedCollection {
  readonly contributions: ReadonlyArray<{ readonly contributorId: string; readonly contribution: ContextContribution }>;
  readonly diagnostics: readonly ContextDiagnostic[];
}

export interface CollectionResult {
  readonly records: readonly ContributorRunRecord[];
  readonly collection: ValidatedCollection;
}

export interface CollectOptions {
  readonly contextId: string;
  readonly scope: ContextScope;
  readonly turn: number;
  readonly history: ContributionRequest['history'];
  readonly signal?: AbortSignal;
  /** Default per-contributor timeout. Default: 5,000 ms. */
  readonly timeoutMs?: number;
  /** Measures durations; injectable for deterministic tests. Default: performance.now. */
  readonly now?: () => number;
  /** Runs the timeouts; injectable so tests control time. Default: the process's timers. */
  readonly timers?: Timers;
}

export const CONTRIBUTOR_TIMEOUT_MS = 5_000;

/**
 * Holds a run's contributors. Ids are unique; the registry is frozen before
 * the first turn, after which nothing can be added.
 */
export class ContextContributorRegistry {
  private readonly factoryIds = new Set<string>();
  private readonly contributors = new Map<string, ContextContributor>();
  private frozen = false;

  /** Creates the factory's contributors for this run's context and scope. */
  registerFactory(factory: ContextContributorFactory, options: { contextId: string; scope: ContextScope }): void {
    this.assertOpen(`factory "${factory.id}"`);
    if (this.factoryIds.has(factory.id)) {
      throw new ContextInputError({ code: 'CONTEXT_DUPLICATE_ID', culprit: factory.id, message: `duplicate contributor factory id "${factory.id}"` });
    }
    this.factoryIds.add(factory.id);
    const created = factory.create(options);
    for (const contributor of Array.isArray(created) ? created : [created as ContextContributor]) this.register(contributor);
  }

  register(contributor: ContextContributor): void {
    this.assertOpen(`contributor "${contributor.id}"`);
    if (typeof contributor.id !== 'string' || contributor.id === '') {
      throw new ContextInputError({ code: 'CONTEXT_CONTRIBUTOR_INVALID', culprit: String(contributor.id), message: 'a contributor needs a non-empty string id' });
    }
    if (this.contributors.has(contributor.id)) {
      throw new ContextInputError({ code: 'CONTEXT_DUPLICATE_ID', culprit: contributor.id, message: `duplicate contributor id "${contributor.id}"` });
    }
    this.contributors.set(contributor.id, contributor);
  }

  freeze(): this {
    this.frozen = true;
    return this;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  /** Contributor ids in the stable order they run and render in. */
  ids(): string[] {
    return [...this.contributors.keys()].sort();
  }

  /**
   * Runs every contributor of `scope` concurrently, each cut off by its
   * timeout and by the run's signal. A failing required contributor fails
   * the turn (ContextInputError naming it); a failing optional one becomes a
   * warning. An invalid contribution is dropped whole.
   */
  async collectDetailed(options: CollectOptions): Promise<CollectionResult> {
    if (!this.frozen) this.freeze();
    const now = options.now ?? (() => performance.now());
    const signal = options.signal ?? new AbortController().signal;
    signal.throwIfAborted();
    const selected = this.ids()
      .map((id) => this.contributors.get(id)!)
      .filter((contributor) => contributor.scopes.includes(options.scope));
    const records = await Promise.all(selected.map((contributor) => this.runOne(contributor, options, signal, now)));
    signal.throwIfAborted();

    const diagnostics: ContextDiagnostic[] = [];
    const contributions: Array<{ contributorId: string; contribution: ContextContribution }> = [];
    const finalRecords: ContributorRunRecord[] = [];
    const seenIds = new Map<string, string>();
    for (const record of records) {
      let error = record.error;
      let status = record.status;
      let contribution: ContextContribution | undefined;
      if (status === 'ok') {
        const verdict = validateContribution(record.contributorId, record.raw, seenIds);
        if (verdict.ok) contribution = verdict.contribution;
        else {
          status = 'invalid';
          error = verdict.error;
        }
      }
      finalRecords.push(status === record.status ? record : { ...record, status, error });
      if (contribution) {
        contributions.push({ contributorId: record.contributorId, contribution });
        diagnostics.push(...(contribution.diagnostics ?? []).map((diagnostic) => ({ ...diagnostic, subject: diagnostic.subject ?? record.contributorId })));
        continue;
      }
      const message = `contributor "${record.contributorId}" ${status === 'invalid' ? 'returned an invalid contribution' : status.replace('_', ' ')}: ${error}`;
      if (record.required) {
        throw new ContextInputError({ code: 'CONTEXT_REQUIRED_CONTRIBUTOR_FAILED', culprit: record.contributorId, message: `required ${message}` });
      }
      diagnostics.push({ code: status === 'invalid' ? 'CONTEXT_CONTRIBUTION_DROPPED' : 'CONTEXT_CONTRIBUTOR_FAILED', severity: 'warning', subject: record.contributorId, message });
    }
    return { records: finalRecords, collection: { contributions, diagnostics } };
  }

  private async runOne(contributor: ContextContributor, options: CollectOptions, runSignal: AbortSignal, now: () => number): Promise<ContributorRunRecord> {
    const timeoutMs = contributor.timeoutMs ?? options.timeoutMs ?? CONTRIBUTOR_TIMEOUT_MS;
    const started = now();
    const base = { contributorId: contributor.id, required: contributor.required === true };
    try {
      const raw = await withTimeout({
        run: (signal) => contributor.contribute({ contextId: options.contextId, scope: options.scope, turn: options.turn, history: options.history, signal }),
        limitMs: timeoutMs,
        signal: runSignal,
        timers: options.timers,
      });
      return { ...base, status: 'ok', durationMs: now() - started, raw };
    } catch (error) {
      const durationMs = now() - started;
      if (error instanceof TimeLimitExceeded) return { ...base, status: 'timed_out', durationMs, error: error.message };
      if (runSignal.aborted) return { ...base, status: 'aborted', durationMs, error: 'the run was aborted' };
      return { ...base, status: 'failed', durationMs, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private assertOpen(what: string): void {
    if (this.frozen) {
      throw new ContextInputError({ code: 'CONTEXT_REGISTRY_FROZEN', culprit: what, message: `cannot add ${what}: the contributor registry is frozen for this run` });
    }
  }
}

