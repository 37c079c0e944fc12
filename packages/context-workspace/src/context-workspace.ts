import { ConfigurationError, type TokenEstimator } from '@strata/context';
import {
  activateScore,
  applyReplaceFade,
  timeFadedScore,
  INITIAL_ACTIVATION_SCORE,
  projectionFor,
  projectionLevel,
  type Exposure,
  type ProjectionLevel,
} from './activation.js';
import {
  ensureContextBlock,
  sourceKeyId,
  type ContextBlock,
  type ContextBlockInit,
  type SourceKey,
} from './context-block.js';
import { knownDomains, parseDomain, parseRequestedDomains, type FocusedDomain } from './focused-domain.js';
import { buildResolvedBlock, resolvedContext, type ResolvedContext, type ResolvedMember } from './resolved-context.js';
import { readSnapshotV1, writeSnapshotV1, type ContextWorkspaceSnapshotV1 } from './snapshot.js';
import { fitToTokenBudget, parseTokenBudget } from './token-budget.js';
import { SourceKeyOrder } from './source-key-order.js';
import { traceEvent, type TraceRecorder } from './trace-recorder.js';
import { requireNonEmptyString } from './validate.js';

export interface ContextWorkspaceOptions {
  /** The clock, milliseconds. Default: `Date.now`. Tests pass a manual clock. */
  readonly now?: () => number;
  /** Receives a `context-workspace` event on every register and every expire that removed something. */
  readonly traceRecorder?: TraceRecorder;
  /** An application's own domains, accepted beside the built-ins. */
  readonly customDomains?: readonly string[];
}

export interface ResolveOptions {
  /** With `estimator`: degrade, then drop, the lowest-ranked blocks until the text fits. */
  readonly maxTokens?: number;
  readonly estimator?: TokenEstimator;
}

/** A block's state as the workspace holds it, seen without touching it. */
export interface WorkspaceBlockState {
  readonly sequence: number;
  readonly block: ContextBlock;
  /** As of now, time fade included; reading does not write it back. */
  readonly activationScore: number;
  readonly level: ProjectionLevel;
  /** When the stored score was last written, milliseconds. */
  readonly touchedAtMs: number;
}

interface Entry {
  readonly block: ContextBlock;
  readonly sequence: number;
  readonly group: SourceGroup;
  score: number;
  touchedAtMs: number;
}

/** The live blocks of one SourceKey. `rank` is the key's position in (block name, source) order. */
interface SourceGroup {
  readonly keyId: string;
  entries: Entry[];
  rank: number;
  /** Scratch for grouping one resolve's members: the resolve's number and the group's slot in its output. */
  resolveNumber: number;
  resolveSlot: number;
}

/** The sort keys are copied flat so ranking compares numbers on one object. */
interface Candidate {
  readonly weight: number;
  readonly score: number;
  readonly rank: number;
  readonly sequence: number;
  readonly group: SourceGroup;
  readonly member: ResolvedMember;
}

const DEFAULTS = Object.freeze({ now: Date.now });

/**
 * Domain-focused context blocks with decay. Modules `register` blocks;
 * a consumer asks `resolve(domains)` for what matters to its ordered domains;
 * `expire` removes a source. Scores change only when a block is touched
 * (time fade is charged lazily for the time since it was last touched), so
 * the same history on the same clock gives the same bytes.
 *
 * Not safe for concurrent mutation from several threads; in one Node process
 * every call runs to completion.
 */
export class ContextWorkspace {
  readonly #now: () => number;
  readonly #traceRecorder: TraceRecorder | undefined;
  readonly #known: ReadonlySet<FocusedDomain>;
  /** By sequence, in registration order. */
  readonly #entries = new Map<number, Entry>();
  readonly #groups = new Map<string, SourceGroup>();
  readonly #keyOrder = new SourceKeyOrder<SourceGroup>();
  #nextSequence = 0;
  #resolveCount = 0;

  constructor(options: ContextWorkspaceOptions = {}) {
    const now = options.now ?? DEFAULTS.now;
    if (typeof now !== 'function') {
      throw new ConfigurationError({ setting: 'now', message: 'now must be a function returning milliseconds' });
    }
    this.#now = now;
    this.#traceRecorder = options.traceRecorder;
    this.#known = knownDomains(options.customDomains ?? []);
  }

  /**
   * Rebuilds a workspace from a `ContextWorkspaceSnapshotV1` (as `snapshot()` returned it, or parsed
   * from its JSON); time fade resumes from each block's `touchedAtMs`. Throws `ContextWorkspaceInputError`
   * naming the path of a malformed value or of a domain this workspace does not know.
   */
  static restore(snapshot: unknown, options: ContextWorkspaceOptions = {}): ContextWorkspace {
    const workspace = new ContextWorkspace(options);
    const { nextSequence, entries } = readSnapshotV1(snapshot, { known: workspace.#known });
    for (const { block, sequence, score, touchedAtMs } of entries) {
      workspace.#add({ block, sequence, score, touchedAtMs });
    }
    workspace.#nextSequence = nextSequence;
    return workspace;
  }

  /** The domains this workspace accepts. */
  get domains(): ReadonlySet<FocusedDomain> {
    return this.#known;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Adds a block. Every older block of the same SourceKey is first charged
   * its time fade, then loses its `replaceFadeFactor`; those that reach 0 are
   * removed, the rest stay as history. The new block always stays, at score
   * 100 from now. Throws `ContextWorkspaceInputError` for an invalid block or
   * a domain this workspace does not know.
   */
  register(block: ContextBlock | ContextBlockInit): void {
    const valid = ensureContextBlock(block);
    valid.focusedOn.forEach((domain, index) => parseDomain(domain, { known: this.#known, field: `focusedOn[${index}]` }));
    const now = this.#clock();
    for (const older of [...(this.#groups.get(sourceKeyId(valid))?.entries ?? [])]) {
      this.#fade(older, now);
      older.score = applyReplaceFade(older.score, older.block.replaceFadeFactor);
      if (older.score <= 0) this.#remove(older);
    }
    this.#add({ block: valid, sequence: this.#nextSequence, score: INITIAL_ACTIVATION_SCORE, touchedAtMs: now });
    this.#nextSequence += 1;
    this.#record({ action: 'register', changed: [valid], now });
  }

  /** Removes every block of the SourceKey; returns how many. Records a trace event only when one was removed. */
  expire(blockName: string, source: string): number {
    requireNonEmptyString(blockName, 'blockName');
    requireNonEmptyString(source, 'source');
    const key: SourceKey = { blockName, source };
    const group = this.#groups.get(sourceKeyId(key))?.entries ?? [];
    const removed = group.length;
    for (const entry of [...group]) this.#remove(entry);
    if (removed > 0) this.#record({ action: 'expire', changed: [key], now: this.#clock() });
    return removed;
  }

  /**
   * The context for an ordered list of domains; the first is primary and
   * weighs most (`domains.length − i` for the i-th). Every block is charged
   * its time fade and removed at 0; blocks focused on none of the domains are
   * left out and not activated; the rest are activated by their exposure,
   * rendered, ranked (weight descending, score descending, block name,
   * source, newer first) and grouped by SourceKey. An empty list returns an
   * empty result and touches nothing. Throws `ContextWorkspaceInputError` for
   * an unknown or repeated domain or a malformed budget.
   */
  resolve(domains: readonly FocusedDomain[], options: ResolveOptions = {}): ResolvedContext {
    const requested = parseRequestedDomains(domains, { known: this.#known, field: 'domains' });
    const budget = parseTokenBudget(options);
    if (requested.length === 0) {
      return resolvedContext({ blocks: [], ...(budget && { budget: { maxTokens: budget.maxTokens, usedTokens: 0, degraded: [], dropped: [] } }) });
    }
    const weights = new Map<FocusedDomain, number>(requested.map((domain, index) => [domain, requested.length - index]));
    const primary = requested[0];
    const now = this.#clock();

    this.#keyOrder.renumber();
    const candidates: Candidate[] = [];
    // Deleting the current entry while iterating a Map is well defined.
    for (const entry of this.#entries.values()) {
      const { block } = entry;
      this.#fade(entry, now);
      if (entry.score <= 0) {
        this.#remove(entry);
        continue;
      }
      let weight = 0;
      let exposure: Exposure = 'SECONDARY';
      for (const domain of block.focusedOn) {
        const domainWeight = weights.get(domain);
        if (domainWeight === undefined) continue;
        weight += domainWeight;
        if (domain === primary) exposure = 'PRIMARY';
      }
      if (weight === 0) continue;
      const score = activateScore(entry.score, exposure, block.activateFactor);
      entry.score = score;
      const level = projectionLevel(score);
      const projection = projectionFor(level, exposure);
      const member: ResolvedMember = {
        block,
        sequence: entry.sequence,
        activationScore: score,
        level,
        exposure,
        domainWeight: weight,
        activatedProjection: projection,
        projection,
      };
      candidates.push({ weight, score, rank: entry.group.rank, sequence: entry.sequence, group: entry.group, member });
    }
    candidates.sort(compareCandidates);

    // Same-key members in rank order; each group sits where its first member ranks.
    const resolveNumber = (this.#resolveCount += 1);
    const groups: ResolvedMember[][] = [];
    for (const { group, member } of candidates) {
      if (group.resolveNumber === resolveNumber) {
        groups[group.resolveSlot]!.push(member);
      } else {
        group.resolveNumber = resolveNumber;
        group.resolveSlot = groups.length;
        groups.push([member]);
      }
    }
    const blocks = groups.map(buildResolvedBlock);
    if (budget === undefined) return resolvedContext({ blocks });
    const fitted = fitToTokenBudget({ blocks, budget });
    return resolvedContext({ blocks: fitted.blocks, budget: fitted.report, diagnostics: fitted.diagnostics });
  }

  /** Every block in registration order, scores as of now; changes nothing. */
  blocks(): readonly WorkspaceBlockState[] {
    const now = this.#clock();
    return [...this.#entries.values()].map((entry) => {
      const activationScore = this.#scoreAt(entry, now);
      return { sequence: entry.sequence, block: entry.block, activationScore, level: projectionLevel(activationScore), touchedAtMs: entry.touchedAtMs };
    });
  }

  /** The state as versioned JSON; changes nothing. */
  snapshot(): ContextWorkspaceSnapshotV1 {
    return writeSnapshotV1({ entries: this.#entries.values(), takenAtMs: this.#clock(), nextSequence: this.#nextSequence });
  }

  #clock(): number {
    const now = this.#now();
    if (typeof now !== 'number' || !Number.isFinite(now)) {
      throw new ConfigurationError({ setting: 'now', message: `now() must return finite milliseconds, got ${String(now)}` });
    }
    return now;
  }

  #scoreAt(entry: Entry, now: number): number {
    return timeFadedScore(entry.score, now - entry.touchedAtMs, entry.block.timeFadeFactor);
  }

  /** Charges time fade up to `now`. A clock that went backwards charges nothing and keeps the later mark. */
  #fade(entry: Entry, now: number): void {
    entry.score = this.#scoreAt(entry, now);
    entry.touchedAtMs = Math.max(entry.touchedAtMs, now);
  }

  #add(fields: Omit<Entry, 'group'>): void {
    const keyId = sourceKeyId(fields.block);
    let group = this.#groups.get(keyId);
    if (group === undefined) {
      group = { keyId, entries: [], rank: 0, resolveNumber: 0, resolveSlot: 0 };
      this.#groups.set(keyId, group);
      this.#keyOrder.insert(group);
    }
    // Spelled out, not spread: a spread-built object here was ten times slower to walk in resolve.
    const entry: Entry = { block: fields.block, sequence: fields.sequence, group, score: fields.score, touchedAtMs: fields.touchedAtMs };
    group.entries.push(entry);
    this.#entries.set(entry.sequence, entry);
  }

  #remove(entry: Entry): void {
    this.#entries.delete(entry.sequence);
    const { group } = entry;
    group.entries = group.entries.filter((member) => member !== entry);
    if (group.entries.length > 0) return;
    this.#groups.delete(group.keyId);
    this.#keyOrder.delete(group);
  }

  #record(options: { action: 'register' | 'expire'; changed: readonly SourceKey[]; now: number }): void {
    if (this.#traceRecorder === undefined) return;
    const blocks = [...this.#entries.values()].map((entry) => ({
      sequence: entry.sequence,
      block: entry.block,
      activationScore: this.#scoreAt(entry, options.now),
    }));
    this.#traceRecorder.record(traceEvent({ action: options.action, atMs: options.now, changed: options.changed, blocks }));
  }
}

/** Weight descending, score descending, block name, source (the key's rank), then newer first. */
function compareCandidates(left: Candidate, right: Candidate): number {
  return (
    right.weight - left.weight ||
    right.score - left.score ||
    left.rank - right.rank ||
    right.sequence - left.sequence
  );
}
