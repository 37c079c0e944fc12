import type { AssembledTurn, ContextAssembler } from './context-assembler.js';
import { checkContextState } from './context-state.js';
import type { ContextTraceV5, ModelCallTrace } from './context-trace.js';
import type { ContextDiagnostic } from './contributor.js';
import { calibrateContextState } from './usage-calibration.js';
import { resolveContextBudget, type ContextBudgetOptions, type ContextConfiguration, type ContextMode } from './context-configuration.js';
import { createContextPipeline } from './context-pipeline.js';
import type { ContextContributorFactory } from './contributor.js';
import type { HistoryCompactorOptions } from './default-history-compactor.js';
import { firstRequest } from './goal-snapshot.js';
import type { MessageComposerOptions } from './message-composer.js';
import { BoundedCache } from './bounded-cache.js';
import { chainFingerprint, messageFingerprint } from './message-fingerprint.js';
import type { CanonicalHistory, CanonicalMessage, ToolResultMessage } from './messages.js';
import type { SessionState, SessionStore, SessionVersion, Summarizer, ToolOutputStore, TraceSink } from './ports.js';
import { openingKey, resolveOpeningContext, runStateOf, type HostLoopRunState, type ResolvedContext } from './host-loop-runs.js';
import type { TokenEstimator, ToolSchema } from './token-estimator.js';
import { redactCredentials } from './redact-credentials.js';

/** A canonical message imported from a host loop, with what it was made from there. */
export interface ImportedMessage<Origin> {
  readonly message: CanonicalMessage;
  /** The host's own value (a message, a part, a list of items): sent back as is while the message is unchanged. */
  readonly origin: Origin;
}

export interface HostLoopContextOptions {
  /** Decides every window: `createContextPipeline`'s assembler (`createHostLoopContext` wires it). */
  readonly assembler: ContextAssembler;
  /** Where tool results are kept for `read_tool_output`; the same store the assembler checks references against. */
  readonly outputStore: ToolOutputStore;
  /**
   * Where each context's compacted history, context state and the host
   * messages it has taken in are kept: a new adapter instance, another
   * process or a restart continues a context from it.
   */
  readonly sessionStore: SessionStore;
  /** Tool results at least this long (UTF-16 code units) are stored on first sight, so compaction can mask them. Default 1,024; not used with `storeResult`. */
  readonly storeFromChars?: number;
  /**
   * How a host's tool result enters the history, as a run's does: stored
   * under a reference (credentials redacted), the message that carries it
   * returned. The adapters give `@strata/tools`' `storeToolResult`, so a
   * host loop keeps what a run keeps. Default: results of `storeFromChars`
   * or more are put in `outputStore` as they are.
   */
  readonly storeResult?: (request: { readonly contextId: string; readonly result: ToolResultMessage; readonly signal?: AbortSignal }) => Promise<ToolResultMessage>;
  /**
   * Where each call puts its context's original request (from the session)
   * just before it assembles, for the pipeline's goal snapshot to read.
   */
  readonly goals?: BoundedCache<string, string>;
  /**
   * The assembler's trace sink as `createHostLoopContext` wraps it: the
   * trace of a call whose host reports its usage afterwards
   * (`reportsUsage`) is held until `recordUsage`, then written with the
   * provider's count beside ours.
   */
  readonly traces?: HeldTraceSink;
  /** Receives what usage feedback noticed (the calibration, a prompt the server may have truncated), as `recordUsage` returns it. */
  readonly onDiagnostic?: (diagnostic: ContextDiagnostic) => void;
  /** The clock of the trace's latencies. Default: performance.now. */
  readonly now?: () => number;
}

/** What a provider reported for one model call, in any form (a non-number is "not reported"). */
export interface HostLoopUsage {
  readonly inputTokens?: unknown;
  readonly outputTokens?: unknown;
  readonly cachedInputTokens?: unknown;
  readonly cacheWriteInputTokens?: unknown;
}

export interface HostLoopTurnRequest<Origin> {
  /**
   * The context to continue, shared on purpose by every run that names it
   * (a conversation or thread id). Absent: the run's own context, found by
   * `run` or by the run's opening (`resolveOpeningContext`).
   */
  readonly contextId?: string;
  /**
   * What identifies the run in the host when it has such a value (the AI
   * SDK's list of steps): every call of the run continues the context its
   * first call resolved. Held weakly.
   */
  readonly run?: object;
  /** The prefix of the context ids made for runs that name none (the adapter's name). Default `"host-loop"`. */
  readonly scope?: string;
  /** The host's whole history for this model call, imported in order. */
  readonly messages: readonly ImportedMessage<Origin>[];
  /**
   * The adapter's own messages after the host's, which the host never sees
   * (the gateway's `read_tool_output` rounds): taken into the history like
   * the host's, but not counted among them, so the host's next history
   * (without them) still continues the context and finds them in the
   * stored history after the host message they followed. A call with the
   * same host messages as the last must pass the own messages taken in then
   * first (the rounds of one request grow); one that passes fewer or others
   * (a retry) starts the context over from its messages. Default none.
   */
  readonly ownMessages?: readonly ImportedMessage<Origin>[];
  /** The tools the model is offered, charged to the budget. */
  readonly tools?: readonly ToolSchema[];
  readonly signal?: AbortSignal;
  /**
   * The input tokens the provider reported for this context's previous
   * model call, where the host tells them only with the next call (the AI
   * SDK's steps, an Agents run's usage): the calibration is applied before
   * this turn assembles (see `calibrateContextState`).
   */
  readonly previousInputTokens?: unknown;
  /**
   * The caller reports this call's usage once it ends (`recordUsage`, also
   * when it failed): the turn's trace is held until then and written with
   * the provider's count. Default false: the trace is written at assembly.
   */
  readonly reportsUsage?: boolean;
}

export interface HostLoopTurn<Origin> {
  /** The context the turn was assembled in: the one given, or the run's own. */
  readonly contextId: string;
  /** The 1-based number of the turn in its context. */
  readonly turn: number;
  /** What feeding back `previousInputTokens` noticed (also given to `onDiagnostic`). */
  readonly diagnostics: readonly ContextDiagnostic[];
  /** What the model receives, in order: each with its origin when the host's own value is still exact, else to be converted. */
  readonly messages: ReadonlyArray<{ readonly message: CanonicalMessage; readonly origin: Origin | undefined }>;
  readonly assembled: AssembledTurn;
}

const DEFAULT_STORE_FROM_CHARS = 1_024;
const DEFAULT_SCOPE = 'host-loop';
/** Contexts whose goal a host loop holds between its set and the assembly that reads it. */
const GOALS_KEPT = 1_024;
/** Writes tried against a context another call changed meanwhile. */
const WRITE_ATTEMPTS = 5;

/**
 * Strata inside a loop it does not own (the AI SDK, LangChain, the OpenAI
 * Agents SDK). Each model call the host passes its whole history; Strata
 * keeps the compacted canonical history of the context in the session
 * store, appends what is new, stores large tool results (so compaction can
 * replace them by previews with a `read_tool_output` reference), and lets
 * the assembler decide the window from the session and its context state.
 * So any instance in any process continues a context as the last call
 * left it. A message the assembler sends unchanged goes back as the host's
 * own value (nothing of it is dropped); only what Strata changed (previews,
 * checkpoints, repaired pairs, its own system prompt) is converted by the
 * adapter.
 *
 * A run that names no context gets its own (by `run`, else by its opening
 * and the stored context its history continues), so two runs never share a
 * context, a stored output or a search unless they name the same id. When
 * the history of a named or bound context no longer starts with what the
 * host passed before (it was edited or is another conversation under the
 * same id), that context starts over from it. The host's history itself is
 * never changed.
 */
export class HostLoopContext<Origin> {
  private readonly options: HostLoopContextOptions;
  /** The context of each run the host identified (`HostLoopTurnRequest.run`). */
  private readonly runs = new WeakMap<object, string>();
  /**
   * The calls of each opening in progress here, one after another: a call
   * stores its new tool results before it knows its write wins, so two
   * calls racing for one context would leave the loser's results in the
   * winner's store. (Across processes the session store's version check
   * keeps the histories apart; such a lost race can leave a result behind.)
   */
  private readonly openings = new Map<string, Promise<void>>();
  /** The held trace of each turn prepared with `reportsUsage`, until `recordUsage`. */
  private readonly held = new WeakMap<HostLoopTurn<Origin>, HeldTrace>();
  private readonly assemblyMs = new WeakMap<AssembledTurn, number>();
  private readonly now: () => number;

  constructor(options: HostLoopContextOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Usage feedback after a model call made from `turn`: the provider's
   * input count against ours (the turn trace's `budget.totalTokens`), by
   * the same rule as a run's (`calibrateContextState`). Where it counted
   * more, the context state's calibration rises and is stored as the
   * context's next version, so the next turn on any instance is assembled
   * for it; a count far below ours is the "server may have truncated the
   * prompt" warning. A turn prepared with `reportsUsage` has its trace
   * written now, with the provider's count beside ours (`modelCall`); call
   * this also when the call failed (`usage` undefined, `error` set). Returns
   * the diagnostics (also given to `onDiagnostic`).
   */
  async recordUsage(turn: HostLoopTurn<Origin>, report: { readonly usage?: HostLoopUsage; readonly error?: unknown; readonly modelMs?: number } = {}): Promise<readonly ContextDiagnostic[]> {
    const held = this.held.get(turn);
    this.held.delete(turn);
    const diagnostics: ContextDiagnostic[] = [];
    const countedTokens = turn.assembled.trace.budget?.totalTokens;
    if (countedTokens !== undefined && report.usage !== undefined) {
      for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt += 1) {
        const stored = await this.options.sessionStore.load(turn.contextId);
        const calibrated = calibrateContextState(checkContextState(stored?.state?.context), { countedTokens, reportedTokens: report.usage.inputTokens, turn: turn.turn });
        if (attempt === 1) diagnostics.push(...calibrated.diagnostics);
        if (stored === undefined || calibrated.state === stored.state?.context) break;
        try {
          await this.options.sessionStore.append(turn.contextId, [], { expectedVersion: stored.version, state: { ...stored.state, context: calibrated.state } });
          break;
        } catch (error) {
          if (!isSessionConflict(error) || attempt === WRITE_ATTEMPTS) throw error;
        }
      }
    }
    for (const diagnostic of diagnostics) this.options.onDiagnostic?.(diagnostic);
    await held?.release(modelCallTrace(report, this.assemblyMs.get(turn.assembled) ?? 0));
    return diagnostics;
  }

  /** The 1-based number of the last turn assembled for a context (0 before the first). */
  async lastTurn(contextId: string): Promise<number> {
    return runStateOf(await this.options.sessionStore.load(contextId))?.turn ?? 0;
  }

  async prepare(request: HostLoopTurnRequest<Origin>): Promise<HostLoopTurn<Origin>> {
    request.signal?.throwIfAborted();
    // One pass over the host's messages: each one's fingerprint chained on the last's, and the host's own value
    // by its content (what the model may get back as it is; a stored result is matched without its reference).
    // The adapter's own messages continue the chain past the host's: `chain[k]` for k past the host's messages covers them.
    const chain: string[] = [''];
    const origins = new Map<string, Origin>();
    for (const { message, origin } of [...request.messages, ...(request.ownMessages ?? [])]) {
      const fingerprint = messageFingerprint(message);
      chain.push(chainFingerprint(chain.at(-1)!, fingerprint));
      origins.set(fingerprint, origin);
    }
    const messages = request.messages.map(({ message }) => message);
    if (request.contextId !== undefined) return this.assemble(request, messages, chain, origins);
    const key = openingKey(request.scope ?? DEFAULT_SCOPE, messages, chain);
    const previous = this.openings.get(key) ?? Promise.resolve();
    const turn = previous.then(() => this.assemble(request, messages, chain, origins, key));
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.openings.set(key, settled);
    try {
      return await turn;
    } finally {
      if (this.openings.get(key) === settled) this.openings.delete(key);
    }
  }

  /** Resolves the call's context and assembles the turn in it, again after a lost write. */
  private async assemble(request: HostLoopTurnRequest<Origin>, messages: readonly CanonicalMessage[], chain: readonly string[], origins: ReadonlyMap<string, Origin>, key?: string): Promise<HostLoopTurn<Origin>> {
    for (let attempt = 1; ; attempt += 1) {
      // Resolved again after a lost write: another run may have taken the context meanwhile.
      const { contextId, stored } = await this.resolve(request, messages, chain, key);
      const previous = runStateOf(stored);
      const hostCount = request.messages.length;
      const own = request.ownMessages ?? [];
      const continuesHost = previous !== undefined && previous.hostMessages <= hostCount && chain[previous.hostMessages] === previous.hostPrefix;
      // With the same host messages as the last call, the own messages taken in then are in the stored history: this call's must start with them.
      const sameHost = continuesHost && previous.hostMessages === hostCount;
      const continues = continuesHost && (!sameHost || (previous.ownMessages <= own.length && chain[hostCount + previous.ownMessages] === previous.ownPrefix));
      const added = continues ? [...request.messages.slice(previous.hostMessages), ...own.slice(sameHost ? previous.ownMessages : 0)] : [...request.messages, ...own];
      const appended: CanonicalMessage[] = [];
      for (const { message } of added) appended.push(await this.stored(contextId, message, request.signal));
      const history = [...(continues ? stored!.messages : []), ...appended];
      const turn = (previous?.turn ?? 0) + 1;
      const goal = (continues ? previous.goal : null) ?? firstRequest(history) ?? null;
      if (goal !== null) this.options.goals?.set(contextId, goal);
      // Usage feedback the host gives with this call: the previous call's count against ours, before this turn assembles.
      const fed = continues ? calibrateContextState(checkContextState(stored!.state?.context), { countedTokens: stored!.state?.context?.lastInputTokens ?? 0, reportedTokens: request.previousInputTokens, turn: turn - 1 }) : undefined;
      const held = request.reportsUsage === true ? this.options.traces?.hold(contextId, turn) : undefined;
      const started = this.now();
      let assembled: AssembledTurn;
      try {
        assembled = await this.options.assembler.assemble({ contextId, turn, history, tools: request.tools ?? [], signal: request.signal, state: fed?.state });
      } catch (error) {
        await held?.release();
        throw error;
      }
      this.assemblyMs.set(assembled, this.now() - started);
      const run: HostLoopRunState = { hostMessages: hostCount, hostPrefix: chain[hostCount]!, ownMessages: own.length, ownPrefix: chain.at(-1)!, goal, turn };
      const written = await this.write(contextId, stored, { continues, appended, assembled, state: { context: assembled.state, run: { host: { ...run } } } });
      if (!written) {
        // The assembly is redone over the other call's version: its trace never reached a model.
        held?.discard();
        if (attempt < WRITE_ATTEMPTS) continue;
        throw new Error(`the host-loop context "${contextId}" was changed by another call ${WRITE_ATTEMPTS} times while this one was assembled`);
      }
      if (request.run !== undefined) this.runs.set(request.run, contextId);
      for (const diagnostic of fed?.diagnostics ?? []) this.options.onDiagnostic?.(diagnostic);
      const result: HostLoopTurn<Origin> = {
        contextId,
        turn,
        diagnostics: fed?.diagnostics ?? [],
        messages: assembled.input.messages.map((message) => ({ message, origin: origins.get(messageFingerprint(withoutRef(message))) })),
        assembled,
      };
      if (held) this.held.set(result, held);
      return result;
    }
  }

  /** The context a call continues: the one it names, its run's, or the run's own by its opening. */
  private async resolve(request: HostLoopTurnRequest<Origin>, messages: readonly CanonicalMessage[], chain: readonly string[], key: string | undefined): Promise<ResolvedContext> {
    const named = request.contextId ?? (request.run === undefined ? undefined : this.runs.get(request.run));
    if (named !== undefined || key === undefined) return { contextId: named!, stored: await this.options.sessionStore.load(named!) };
    return resolveOpeningContext({ sessionStore: this.options.sessionStore, key, messages, chain });
  }

  /** Records the turn as the context's next version; false when another call wrote a version first. */
  private async write(contextId: string, stored: SessionVersion | undefined, turn: { continues: boolean; appended: readonly CanonicalMessage[]; assembled: AssembledTurn; state: SessionState }): Promise<boolean> {
    const { sessionStore } = this.options;
    const expectedVersion = stored?.version ?? 0;
    try {
      if (turn.continues && !turn.assembled.historyChanged) await sessionStore.append(contextId, turn.appended, { expectedVersion, state: turn.state });
      else if (stored === undefined) await sessionStore.append(contextId, turn.assembled.history, { expectedVersion, state: turn.state });
      else {
        const reason = turn.continues ? turn.assembled.trace.compaction.reason ?? 'compaction' : 'host-history-rewritten';
        await sessionStore.replace(contextId, turn.assembled.history, { reason, replacedFromVersion: expectedVersion, replacedMessages: stored.messages.length }, { state: turn.state });
      }
      return true;
    } catch (error) {
      if (isSessionConflict(error)) return false;
      throw error;
    }
  }

  /** A tool result long enough to mask, with its body stored under a reference; any other message as it is. */
  private async stored(contextId: string, message: CanonicalMessage, signal: AbortSignal | undefined): Promise<CanonicalMessage> {
    if (message.role !== 'tool' || message.outputRef !== undefined) return message;
    if (this.options.storeResult) return this.options.storeResult({ contextId, result: message, signal });
    if (message.content.length < (this.options.storeFromChars ?? DEFAULT_STORE_FROM_CHARS)) return message;
    const outputRef = await this.options.outputStore.put({ contextId, toolCallId: message.toolCallId, toolName: message.toolName, body: message.content });
    const stored: ToolResultMessage = { ...message, outputRef };
    return stored;
  }
}

/** The session stores' `SessionConflictError` (in `@strata/store`, which this package does not import), by its marker or code. */
const SESSION_CONFLICT_MARKER = Symbol.for('strata.error.SessionConflictError');
function isSessionConflict(error: unknown): boolean {
  const fields = error as { [SESSION_CONFLICT_MARKER]?: unknown; code?: unknown } | null;
  return fields?.[SESSION_CONFLICT_MARKER] === true || fields?.code === 'SESSION_VERSION_CONFLICT';
}

/** A stored tool result as the host passed it: without the reference Strata gave it. */
function withoutRef(message: CanonicalMessage): CanonicalMessage {
  if (message.role !== 'tool' || message.outputRef === undefined) return message;
  const { outputRef: _outputRef, ...rest } = message;
  return rest;
}

/** The record of a host's model call: what it reported, without the output (the host keeps it). */
function modelCallTrace(report: { readonly usage?: HostLoopUsage; readonly error?: unknown; readonly modelMs?: number }, assemblyMs: number): ModelCallTrace {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);
  const usage = report.usage;
  return {
    outcome: report.error === undefined ? 'finish' : 'error',
    output: null,
    error: report.error === undefined ? null : { name: report.error instanceof Error ? report.error.name : 'Error', message: redactCredentials(report.error instanceof Error ? report.error.message : String(report.error)).text },
    usage: usage === undefined ? null : { inputTokens: count(usage.inputTokens), outputTokens: count(usage.outputTokens), cachedInputTokens: count(usage.cachedInputTokens), cacheWriteInputTokens: count(usage.cacheWriteInputTokens) },
    latencyMs: { assembly: assemblyMs, model: typeof report.modelMs === 'number' && report.modelMs >= 0 ? report.modelMs : 0 },
  };
}

type TraceDocument = Parameters<TraceSink['write']>[0];

/** A turn's trace documents, held until its model call is reported. */
export interface HeldTrace {
  /** Writes the held documents, with the model call's record when given. A failed write is dropped: a trace never fails a host's call. */
  release(modelCall?: ModelCallTrace): Promise<void>;
  /** Drops them (an assembly that was redone). */
  discard(): void;
}

/**
 * The host loop's view of its trace sink: documents of a turn being held
 * (`hold`) wait for the model call's report; every other document is
 * written as it comes.
 */
export class HeldTraceSink implements TraceSink {
  private readonly sink: TraceSink;
  private readonly pending = new Map<string, TraceDocument[]>();

  constructor(sink: TraceSink) {
    this.sink = sink;
    if (sink.lastTurn) this.lastTurn = (contextId: string) => sink.lastTurn!(contextId);
  }

  lastTurn?: (contextId: string) => Promise<number>;

  async write(document: TraceDocument): Promise<void> {
    const held = this.pending.get(`${document.contextId}\u0000${document.turn}`);
    if (held) held.push(document);
    else await this.sink.write(document);
  }

  hold(contextId: string, turn: number): HeldTrace {
    const key = `${contextId}\u0000${turn}`;
    const documents: TraceDocument[] = [];
    this.pending.set(key, documents);
    const take = () => {
      if (this.pending.get(key) === documents) this.pending.delete(key);
      return documents.splice(0);
    };
    return {
      release: async (modelCall) => {
        for (const document of take()) await this.sink.write(modelCall ? { ...document, body: { ...(document.body as ContextTraceV5), modelCall } } : document).catch(() => undefined);
      },
      discard: () => {
        documents.splice(0);
      },
    };
  }
}

/** The settings of Strata inside a host loop; what the adapters take as their options. */
export interface CreateHostLoopContextOptions {
  /** The budget, e.g. `{ inputCapTokens: 24_000 }` or the model's size less the output reserve. */
  readonly budget: ContextBudgetOptions;
  readonly outputStore: ToolOutputStore;
  /** Where each context's history and state are kept between calls (see `HostLoopContextOptions.sessionStore`). */
  readonly sessionStore: SessionStore;
  /** Receives one trace document per model call. */
  readonly traceSink?: TraceSink;
  /** Compaction settings over the configuration's. */
  readonly compaction?: HistoryCompactorOptions;
  /** Mode and compaction settings, as `resolveContextConfiguration` reads them. */
  readonly configuration?: ContextConfiguration;
  /** Contributors of system-prompt sections and call-local data; frozen at creation. Default: none. */
  readonly contributors?: readonly ContextContributorFactory[];
  /** Default: the conservative estimator, which never under-counts. */
  readonly estimator?: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  /** Default `dynamic`. */
  readonly mode?: ContextMode;
  readonly storeFromChars?: number;
  /** How a host's tool result is stored (see `HostLoopContextOptions.storeResult`); the adapters give `storeToolResult`. */
  readonly storeResult?: HostLoopContextOptions['storeResult'];
  /** The masked view of stored results (see `MessageComposerOptions`). Default: the composer's, as in every run. */
  readonly maskStoredResults?: MessageComposerOptions['maskStoredResults'];
  /** Receives what usage feedback noticed: the calibration, a prompt the server may have truncated. */
  readonly onDiagnostic?: HostLoopContextOptions['onDiagnostic'];
}

/** A `HostLoopContext` over the one context pipeline every run uses (`createContextPipeline`). */
export function createHostLoopContext<Origin>(options: CreateHostLoopContextOptions): HostLoopContext<Origin> {
  const { summarizer, timers, ...compaction } = options.compaction ?? {};
  const goals = new BoundedCache<string, string>(GOALS_KEPT);
  const traces = options.traceSink ? new HeldTraceSink(options.traceSink) : undefined;
  const { assembler } = createContextPipeline({
    // One pipeline serves every context of the host: the ids below are the registry's, each turn names its own context.
    contextId: 'host-loop',
    budget: resolveContextBudget(options.budget),
    configuration: options.configuration,
    mode: options.mode,
    contributors: options.contributors,
    goal: (contextId) => goals.get(contextId),
    estimator: options.estimator,
    exactEstimator: options.exactEstimator,
    summarizer: summarizer as Summarizer | undefined,
    timers,
    compaction,
    maskStoredResults: options.maskStoredResults,
    outputStore: options.outputStore,
    traceSink: traces,
  });
  return new HostLoopContext<Origin>({
    assembler,
    outputStore: options.outputStore,
    sessionStore: options.sessionStore,
    storeFromChars: options.storeFromChars,
    storeResult: options.storeResult,
    goals,
    traces,
    onDiagnostic: options.onDiagnostic,
  });
}
