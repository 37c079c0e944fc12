import type { AssembledTurn, ContextAssembler } from './context-assembler.js';
import { resolveContextBudget, type ContextBudgetOptions, type ContextMode } from './context-configuration.js';
import { ContextContributorRegistry } from './contributor-registry.js';
import { DefaultHistoryCompactor, type HistoryCompactorOptions } from './default-history-compactor.js';
import { createContextAssembler } from './default-pipeline.js';
import { DefaultContextMessageComposer, type MessageComposerOptions } from './message-composer.js';
import type { CanonicalHistory, CanonicalMessage, ToolResultMessage } from './messages.js';
import type { ToolOutputStore, TraceSink } from './ports.js';
import type { TokenEstimator, ToolSchema } from './token-estimator.js';

/** A canonical message imported from a host loop, with what it was made from there. */
export interface ImportedMessage<Origin> {
  readonly message: CanonicalMessage;
  /** The host's own value (a message, a part, a list of items): sent back as is while the message is unchanged. */
  readonly origin: Origin;
}

export interface HostLoopContextOptions {
  /** Decides every window: `createContextAssembler` with a budget from `resolveContextBudget`, a compactor and a trace sink. */
  readonly assembler: ContextAssembler;
  /** Where tool results are kept for `read_tool_output`; the same store the assembler checks references against. */
  readonly outputStore: ToolOutputStore;
  /** Tool results at least this long (UTF-16 code units) are stored on first sight, so compaction can mask them. Default 1,024. */
  readonly storeFromChars?: number;
}

export interface HostLoopTurnRequest<Origin> {
  readonly contextId: string;
  /** The host's whole history for this model call, imported in order. */
  readonly messages: readonly ImportedMessage<Origin>[];
  /** The tools the model is offered, charged to the budget. */
  readonly tools?: readonly ToolSchema[];
  readonly signal?: AbortSignal;
}

export interface HostLoopTurn<Origin> {
  /** What the model receives, in order: each with its origin when the host's own value is still exact, else to be converted. */
  readonly messages: ReadonlyArray<{ readonly message: CanonicalMessage; readonly origin: Origin | undefined }>;
  readonly assembled: AssembledTurn;
}

/** What Strata remembers of a context between two model calls of the host's loop. */
interface Session {
  /** One fingerprint per host message seen last call, to tell an appended history from a rewritten one. */
  readonly fingerprints: readonly string[];
  /** The canonical history after the last call's compaction; new host messages are appended to it. */
  readonly history: CanonicalHistory;
  readonly turn: number;
}

const DEFAULT_STORE_FROM_CHARS = 1_024;
/** Contexts remembered at once, the most recent ones. */
const SESSIONS_KEPT = 1_024;

/**
 * Strata inside a loop it does not own (the AI SDK, LangChain, the OpenAI
 * Agents SDK). Each model call the host passes its whole history; Strata
 * keeps the compacted canonical history of the context, appends what is new,
 * stores large tool results (so compaction can replace them by previews with
 * a `read_tool_output` reference), and lets the assembler decide the window.
 * A message the assembler sends unchanged goes back as the host's own value
 * (nothing of it is dropped); only what Strata changed (previews, checkpoints,
 * repaired pairs, its own system prompt) is converted by the adapter.
 *
 * When the host's history no longer starts with what it passed before (it
 * was edited or is another conversation under the same id), the context
 * starts over from it. The host's history itself is never changed.
 */
export class HostLoopContext<Origin> {
  private readonly options: HostLoopContextOptions;
  private readonly sessions = new Map<string, Session>();
  private readonly origins = new WeakMap<CanonicalMessage, Origin>();

  constructor(options: HostLoopContextOptions) {
    this.options = options;
  }

  /** The 1-based number of the last turn assembled for a context (0 before the first). */
  lastTurn(contextId: string): number {
    return this.sessions.get(contextId)?.turn ?? 0;
  }

  async prepare(request: HostLoopTurnRequest<Origin>): Promise<HostLoopTurn<Origin>> {
    request.signal?.throwIfAborted();
    const fingerprints = request.messages.map(({ message }) => JSON.stringify(message));
    const previous = this.sessions.get(request.contextId);
    const continues = previous !== undefined && startsWith(fingerprints, previous.fingerprints);
    const added = request.messages.slice(continues ? previous.fingerprints.length : 0);
    const appended: CanonicalMessage[] = [];
    for (const { message, origin } of added) {
      const kept = await this.stored(request.contextId, message);
      this.origins.set(kept, origin);
      appended.push(kept);
    }
    const history = [...(continues ? previous.history : []), ...appended];
    const turn = (previous?.turn ?? 0) + 1;
    const assembled = await this.options.assembler.assemble({ contextId: request.contextId, turn, history, tools: request.tools ?? [], signal: request.signal });
    this.remember(request.contextId, { fingerprints, history: assembled.history, turn });
    return { messages: assembled.input.messages.map((message) => ({ message, origin: this.origins.get(message) })), assembled };
  }

  /** A tool result long enough to mask, with its body stored under a reference; any other message as it is. */
  private async stored(contextId: string, message: CanonicalMessage): Promise<CanonicalMessage> {
    if (message.role !== 'tool' || message.outputRef !== undefined || message.content.length < (this.options.storeFromChars ?? DEFAULT_STORE_FROM_CHARS)) return message;
    const outputRef = await this.options.outputStore.put({ contextId, toolCallId: message.toolCallId, toolName: message.toolName, body: message.content });
    const stored: ToolResultMessage = { ...message, outputRef };
    return stored;
  }

  private remember(contextId: string, session: Session): void {
    this.sessions.delete(contextId);
    if (this.sessions.size >= SESSIONS_KEPT) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(contextId, session);
  }
}

function startsWith(values: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > values.length) return false;
  return prefix.every((value, index) => values[index] === value);
}

/** The settings of Strata inside a host loop; what the adapters take as their options. */
export interface CreateHostLoopContextOptions {
  /** The budget, e.g. `{ inputCapTokens: 24_000 }` or the model's size less the output reserve. */
  readonly budget: ContextBudgetOptions;
  readonly outputStore: ToolOutputStore;
  /** Receives one trace document per model call. */
  readonly traceSink?: TraceSink;
  /** Compaction settings (a `summarizer` turns old steps into a checkpoint; without one only tool bodies are masked). */
  readonly compaction?: HistoryCompactorOptions;
  /** Contributors of system-prompt sections and call-local data; frozen at creation. Default: none. */
  readonly registry?: ContextContributorRegistry;
  /** Default: the conservative estimator, which never under-counts. */
  readonly estimator?: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  /** Default `dynamic`. */
  readonly mode?: ContextMode;
  readonly storeFromChars?: number;
  /**
   * The masked view of stored results (see `MessageComposerOptions`).
   * Default false: the host's loop sends each result as it recorded it, and
   * only compaction under pressure masks old ones.
   */
  readonly maskStoredResults?: MessageComposerOptions['maskStoredResults'];
}

/** A `HostLoopContext` over the default pipeline, the compactor and the given store and trace sink. */
export function createHostLoopContext<Origin>(options: CreateHostLoopContextOptions): HostLoopContext<Origin> {
  const assembler = createContextAssembler({
    registry: options.registry ?? new ContextContributorRegistry(),
    budget: resolveContextBudget(options.budget),
    compactor: new DefaultHistoryCompactor(options.compaction),
    outputStore: options.outputStore,
    traceSink: options.traceSink,
    estimator: options.estimator,
    exactEstimator: options.exactEstimator,
    mode: options.mode,
    stages: { composer: new DefaultContextMessageComposer({ maskStoredResults: options.maskStoredResults ?? false }) },
  });
  return new HostLoopContext<Origin>({ assembler, outputStore: options.outputStore, storeFromChars: options.storeFromChars });
}
