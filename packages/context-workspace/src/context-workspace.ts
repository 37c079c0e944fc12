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
import { buildResolvedBlock, resolvedContext, ResolvedMemberRecord, type ResolvedContext, type ResolvedMember } from './resolved-context.js';
import { readSnapshotV1, writeSnapshotV1, type ContextWorkspaceSnapshotV1 } from './snapshot.js';
import { fitToTokenBudget, parseTokenBudget } from './token-budget.js';
import { rankOrder } from './rank-order.js';
import { SourceKeyOrder } from './source-key-order.js';
import { BlockStates } from './block-states.js';
import { TraceJournal, tracedStates, type TracedState } from './trace-journal.js';
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
  /** Where its score, clock mark, factors and focused-domain set live in the workspace's `BlockStates`. */
  readonly slot: number;
}

/**
 * What a resolve walks: every block's slot, keys in (block name, source)
 * order and each key's blocks newest first, as one run per key. Rebuilt after
 * a block is added or removed; kept while only scores change.
 */
interface WalkOrder {
  readonly slots: Uint32Array;
  /** Per run: the index in `slots` where it ends. */
  readonly runEnds: Uint32Array;
  /** Per run: its key. */
  readonly keys: readonly SourceKey[];
}

/** The live blocks of one SourceKey, in sequence order. */
interface SourceGroup extends SourceKey {
  readonly keyId: string;
  entries: Entry[];
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
  /** The distinct `focusedOn` sets of registered blocks, so a resolve weighs each set once, not each block. */
  readonly #domainSets: (readonly FocusedDomain[])[] = [];
  readonly #domainSetIds = new Map<string, number>();
  /** By sequence, in registration order. */
  readonly #entries = new Map<number, Entry>();
  readonly #states = new BlockStates();
  #walk: WalkOrder | undefined;
  readonly #groups = new Map<string, SourceGroup>();
  readonly #keyOrder = new SourceKeyOrder<SourceGroup>();
  /** Present with a trace recorder: what each event lists, captured without copying the workspace. */
  readonly #journal: TraceJournal | undefined;
  #nextSequence = 0;

  constructor(options: ContextWorkspaceOptions = {}) {
    const now = options.now ?? DEFAULTS.now;
    if (typeof now !== 'function') {
      throw new ConfigurationError({ setting: 'now', message: 'now must be a function returning milliseconds' });
    }
    this.#now = now;
    this.#traceRecorder = options.traceRecorder;
    this.#journal = options.traceRecorder === undefined ? undefined : new TraceJournal();
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
    // In sequence order, as registration would have added them: each key's blocks stay oldest first.
    for (const { block, sequence, score, touchedAtMs } of [...entries].sort((left, right) => left.sequence - right.sequence)) {
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
      const score = applyReplaceFade(this.#states.fade(older.slot, now), older.block.replaceFadeFactor);
      this.#states.scores[older.slot] = score;
      if (score <= 0) this.#remove(older);
      else this.#journal?.set(this.#tracedState(older));
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
    const domainWeights = new Map<FocusedDomain, number>(requested.map((domain, index) => [domain, requested.length - index]));
    const primary = requested[0];
    const setWeights = new Float64Array(this.#domainSets.length);
    const setPrimary = new Uint8Array(this.#domainSets.length);
    this.#domainSets.forEach((set, id) => {
      for (const domain of set) {
        setWeights[id] = setWeights[id]! + (domainWeights.get(domain) ?? 0);
        if (domain === primary) setPrimary[id] = 1;
      }
    });
    const now = this.#clock();
    this.#journal?.invalidate();

    // Walks keys in (block name, source) order and each key's blocks newest first: the walk
    // position is the tie-break after weight and score, and one key's members are one run of
    // positions, whose key is noted as the run starts. Reads the blocks' states from typed
    // arrays by slot; nothing but the result is allocated per block.
    const walk = this.#walkOrder();
    const states = this.#states;
    const { blocks: slotBlocks, sequences, domainSets, activateFactors } = states;
    const capacity = walk.slots.length;
    const members: ResolvedMember[] = [];
    const weights = new Float64Array(capacity);
    const scores = new Float64Array(capacity);
    const runs = new Uint32Array(capacity);
    const runKeys: SourceKey[] = [];
    let maxWeight = 0;
    let expired: number[] | undefined;
    let walkIndex = 0;
    for (let key = 0; key < walk.keys.length; key += 1) {
      const runEnd = walk.runEnds[key]!;
      const runStart = members.length;
      const runCount = runKeys.length;
      for (; walkIndex < runEnd; walkIndex += 1) {
        const slot = walk.slots[walkIndex]!;
        const faded = states.fade(slot, now);
        if (faded <= 0) {
          (expired ??= []).push(slot);
          continue;
        }
        const domainSet = domainSets[slot]!;
        const weight = setWeights[domainSet]!;
        if (weight === 0) continue;
        const exposure: Exposure = setPrimary[domainSet] === 1 ? 'PRIMARY' : 'SECONDARY';
        const score = activateScore(faded, exposure, activateFactors[slot]!);
        states.scores[slot] = score;
        const level = projectionLevel(score);
        const projection = projectionFor(level, exposure);
        weights[members.length] = weight;
        scores[members.length] = score;
        runs[members.length] = runCount;
        if (weight > maxWeight) maxWeight = weight;
        members.push(new ResolvedMemberRecord(slotBlocks[slot]!, sequences[slot]!, score, level, exposure, weight, projection, projection));
      }
      if (members.length > runStart) runKeys.push(walk.keys[key]!);
    }
    if (expired !== undefined) for (const slot of expired) this.#remove(this.#entries.get(sequences[slot]!)!);

    // Same-key members in rank order; each key's element sits where its first member ranks.
    const elementOfRun = new Int32Array(runKeys.length).fill(-1);
    const groups: ResolvedMember[][] = [];
    const groupKeys: SourceKey[] = [];
    for (const position of rankOrder({ count: members.length, weights, scores, maxWeight })) {
      const run = runs[position]!;
      const member = members[position]!;
      const element = elementOfRun[run]!;
      if (element === -1) {
        elementOfRun[run] = groups.length;
        groups.push([member]);
        groupKeys.push(runKeys[run]!);
      } else {
        groups[element]!.push(member);
      }
    }
    const blocks = groups.map((group, index) => buildResolvedBlock(group, groupKeys[index]!));
    if (budget === undefined) return resolvedContext({ blocks });
    const fitted = fitToTokenBudget({ blocks, budget });
    return resolvedContext({ blocks: fitted.blocks, budget: fitted.report, diagnostics: fitted.diagnostics });
  }

  /** Every block in registration order, scores as of now; changes nothing. */
  blocks(): readonly WorkspaceBlockState[] {
    const now = this.#clock();
    return [...this.#entries.values()].map((entry) => {
      const activationScore = this.#states.scoreAt(entry.slot, now);
      const touchedAtMs = this.#states.touchedAtMs[entry.slot]!;
      return { sequence: entry.sequence, block: entry.block, activationScore, level: projectionLevel(activationScore), touchedAtMs };
    });
  }

  /** The state as versioned JSON; changes nothing. */
  snapshot(): ContextWorkspaceSnapshotV1 {
    const entries = [...this.#entries.values()].map((entry) => this.#tracedState(entry));
    return writeSnapshotV1({ entries, takenAtMs: this.#clock(), nextSequence: this.#nextSequence });
  }

  #clock(): number {
    const now = this.#now();
    if (typeof now !== 'number' || !Number.isFinite(now)) {
      throw new ConfigurationError({ setting: 'now', message: `now() must return finite milliseconds, got ${String(now)}` });
    }
    return now;
  }

  /** The walk order, rebuilt when a block was added or removed since the last. */
  #walkOrder(): WalkOrder {
    if (this.#walk !== undefined) return this.#walk;
    const keyOrder = this.#keyOrder.sorted();
    const slots = new Uint32Array(this.#entries.size);
    const runEnds = new Uint32Array(keyOrder.length);
    let index = 0;
    keyOrder.forEach((group, run) => {
      for (let member = group.entries.length - 1; member >= 0; member -= 1) slots[index++] = group.entries[member]!.slot;
      runEnds[run] = index;
    });
    this.#walk = { slots, runEnds, keys: keyOrder };
    return this.#walk;
  }

  /** Adds a block with a sequence above every live one of its key. */
  #add(fields: TracedState): void {
    const { block } = fields;
    const keyId = sourceKeyId(block);
    let group = this.#groups.get(keyId);
    if (group === undefined) {
      group = { keyId, blockName: block.blockName, source: block.source, entries: [] };
      this.#groups.set(keyId, group);
      this.#keyOrder.insert(group);
    }
    const { sequence, score, touchedAtMs } = fields;
    const slot = this.#states.allocate({ block, sequence, domainSet: this.#domainSetOf(block.focusedOn), score, touchedAtMs });
    const entry: Entry = { block, sequence, group, slot };
    group.entries.push(entry);
    this.#entries.set(sequence, entry);
    this.#walk = undefined;
    this.#journal?.set(this.#tracedState(entry));
  }

  /** The id of a `focusedOn` set (sorted and unique, as `contextBlock` makes it). */
  #domainSetOf(focusedOn: readonly FocusedDomain[]): number {
    const key = focusedOn.join('\u0000');
    let id = this.#domainSetIds.get(key);
    if (id === undefined) {
      id = this.#domainSets.length;
      this.#domainSets.push(focusedOn);
      this.#domainSetIds.set(key, id);
    }
    return id;
  }

  #remove(entry: Entry): void {
    this.#entries.delete(entry.sequence);
    this.#states.release(entry.slot);
    this.#walk = undefined;
    this.#journal?.removed(entry.sequence);
    const { group } = entry;
    group.entries = group.entries.filter((member) => member !== entry);
    if (group.entries.length > 0) return;
    this.#groups.delete(group.keyId);
    this.#keyOrder.delete(group);
  }

  /** Records an event in O(1): its block list is captured by the journal and built only when read. */
  #record(options: { action: 'register' | 'expire'; changed: readonly SourceKey[]; now: number }): void {
    if (this.#traceRecorder === undefined || this.#journal === undefined) return;
    const { now } = options;
    const captured = this.#journal.capture(() => this.#tracedStates());
    const blocks = () =>
      tracedStates(captured).map((state) => ({
        sequence: state.sequence,
        block: state.block,
        activationScore: timeFadedScore(state.score, now - state.touchedAtMs, state.block.timeFadeFactor),
      }));
    this.#traceRecorder.record(traceEvent({ action: options.action, atMs: now, changed: options.changed, blocks }));
  }

  /** Every block's stored state in trace order: block name, source, then sequence. */
  #tracedStates(): TracedState[] {
    const states: TracedState[] = [];
    for (const group of this.#keyOrder.sorted()) for (const entry of group.entries) states.push(this.#tracedState(entry));
    return states;
  }

  #tracedState(entry: Entry): TracedState {
    const { sequence, block, slot } = entry;
    return { sequence, block, score: this.#states.scores[slot]!, touchedAtMs: this.#states.touchedAtMs[slot]! };
  }
}
