import { BoundedCache } from './bounded-cache.js';
import type { CanonicalMessage } from './messages.js';
import type { SessionStore, SessionVersion, ToolOutputStore } from './ports.js';

/**
 * What a host-loop context keeps beside its canonical history, as the
 * session's run state: how many host messages it has taken in, a
 * fingerprint of them (to tell an appended history from a rewritten one),
 * the context's original request and its last turn; and the adapter's own
 * messages taken in after the host's last (`HostLoopTurnRequest.ownMessages`):
 * how many, and the fingerprint chain of the host's messages and them.
 */
export interface HostLoopRunState {
  readonly hostMessages: number;
  readonly hostPrefix: string;
  readonly ownMessages: number;
  readonly ownPrefix: string;
  readonly goal: string | null;
  readonly turn: number;
}

/** The host-loop run state of a stored session; undefined for a session it did not write. */
export function runStateOf(stored: SessionVersion | undefined): HostLoopRunState | undefined {
  const host = (stored?.state?.run as { host?: Partial<HostLoopRunState> } | null | undefined)?.host;
  if (!host || typeof host.hostMessages !== 'number' || typeof host.hostPrefix !== 'string' || typeof host.turn !== 'number') return undefined;
  // A state written before own messages existed has none: its own prefix is the host's.
  const ownMessages = typeof host.ownMessages === 'number' && typeof host.ownPrefix === 'string' ? host.ownMessages : 0;
  const ownPrefix = ownMessages > 0 ? host.ownPrefix! : host.hostPrefix;
  return { hostMessages: host.hostMessages, hostPrefix: host.hostPrefix, ownMessages, ownPrefix, goal: typeof host.goal === 'string' ? host.goal : null, turn: host.turn };
}

/** A context chosen for a model call, with its newest stored version (undefined for a new one). */
export interface ResolvedContext {
  readonly contextId: string;
  readonly stored: SessionVersion | undefined;
}

/**
 * The context of a run that names none: the one of its opening's contexts
 * whose stored host messages the call's history strictly extends, else a new
 * one. A run's opening is its system prompt and first request (the host
 * messages up to and including the first user message); its contexts are
 * `<scope>:<opening fingerprint>.<n>`, numbered from 1, so another instance
 * or process over the same session store finds them.
 *
 * Strictly: a call whose history equals a stored context's is another run
 * with the same opening (two identical runs' first calls), never the same
 * context again; so no two live runs continue one context, and a history no
 * context continues starts a context of its own instead of starting another
 * run's over. Of several that it extends, the longest stored prefix is
 * taken (then the lowest number): runs at the same point with the same
 * history hold identical contexts, so either gives the same bytes (two runs
 * with one opening may trade contexts at their second calls, when both
 * hold the opening alone; runs identical in every message, call ids too,
 * are told apart only by their `run`).
 *
 * `chain[k]` is the fingerprint chain of the call's first k host messages.
 * Cost: one session load per context of the opening (runs with the same
 * opening share the numbering).
 */
export async function resolveOpeningContext(options: { sessionStore: SessionStore; key: string; messages: readonly CanonicalMessage[]; chain: readonly string[] }): Promise<ResolvedContext> {
  const { sessionStore, key, messages, chain } = options;
  let best: { contextId: string; stored: SessionVersion; hostMessages: number } | undefined;
  for (let member = 1; ; member += 1) {
    const contextId = `${key}.${member}`;
    const stored = await sessionStore.load(contextId);
    if (stored === undefined) return best ?? { contextId, stored: undefined };
    const run = runStateOf(stored);
    if (run === undefined || run.hostMessages >= messages.length || chain[run.hostMessages] !== run.hostPrefix) continue;
    if (best === undefined || run.hostMessages > best.hostMessages) best = { contextId, stored, hostMessages: run.hostMessages };
  }
}

/** The name of a run's opening, `<scope>:<fingerprint>`: the prefix of its contexts' ids (see `resolveOpeningContext`). */
export function openingKey(scope: string, messages: readonly CanonicalMessage[], chain: readonly string[]): string {
  const firstUser = messages.findIndex((message) => message.role === 'user');
  const opening = chain[firstUser === -1 ? Math.min(1, messages.length) : firstUser + 1]!;
  return `${scope}:${opening === '' ? 'empty' : opening}`;
}

/** Tool calls whose issuing context a registry keeps. Default 4,096. */
const CALLS_KEPT = 4_096;

/**
 * Which context issued each tool call, filled when a model call's output is
 * returned (the call ids of its response), so a tool the host runs
 * (`read_tool_output`) resolves the context of its own run. Bounded: the
 * newest `capacity` call ids are kept. One call id issued by several
 * contexts (models that number their calls) keeps every issuer, newest
 * first, for the caller to choose among.
 */
export class ToolCallContexts {
  private readonly calls: BoundedCache<string, readonly string[]>;

  constructor(capacity: number = CALLS_KEPT) {
    this.calls = new BoundedCache(capacity);
  }

  /** Records that `contextId`'s turn issued these calls. */
  issued(contextId: string, callIds: Iterable<string>): void {
    for (const callId of callIds) {
      if (callId === '') continue;
      const issuers = this.calls.get(callId) ?? [];
      this.calls.set(callId, [contextId, ...issuers.filter((issuer) => issuer !== contextId)]);
    }
  }

  /** The contexts that issued a call, newest first; empty for a call no returned turn issued. */
  issuers(callId: string): readonly string[] {
    return this.calls.get(callId) ?? [];
  }

  /**
   * The context a tool call of a run belongs to: its issuer; of several
   * issuers of one call id, the one that stored the output the call reads
   * (its `ref`), else the newest. Undefined for a call no returned turn issued.
   */
  async contextOf(callId: string, input: unknown, outputStore: ToolOutputStore): Promise<string | undefined> {
    const issuers = this.issuers(callId);
    if (issuers.length <= 1) return issuers[0];
    const ref = (input as { ref?: unknown } | null | undefined)?.ref;
    const owner = typeof ref === 'string' && ref !== '' ? (await outputStore.get(ref))?.contextId : undefined;
    return owner !== undefined && issuers.includes(owner) ? owner : issuers[0];
  }
}

/** Model calls after which a turn still waiting for its usage is written without it (`PendingUsage`). */
export const PENDING_USAGE_CALLS = 256;

/**
 * The turn of each host run's newest model call, while the host has not yet
 * told that call's usage (the AI SDK's next step or `onFinish`, an Agents
 * run's next call or `agent_end`). Bounded: a turn still waiting after
 * `calls` later model calls through the adapter (its run failed, or was
 * given up) is handed back by `add` to be written without usage.
 */
export class PendingUsage<Run, Turn> {
  private readonly waiting = new Map<Run, { turn: Turn; call: number }>();
  private calls = 0;

  constructor(private readonly limit: number = PENDING_USAGE_CALLS) {}

  /** The waiting turn of `run`, taken out; undefined when none waits. */
  take(run: Run): Turn | undefined {
    const entry = this.waiting.get(run);
    this.waiting.delete(run);
    return entry?.turn;
  }

  /**
   * Records `run`'s newest call; returns the turns to be written without
   * usage: one that still waited for `run` (two calls of one run at once), then
   * those that waited too long, oldest first. No turn is dropped unwritten.
   */
  add(run: Run, turn: Turn): Turn[] {
    this.calls += 1;
    const expired: Turn[] = [];
    const replaced = this.waiting.get(run);
    if (replaced !== undefined) expired.push(replaced.turn);
    this.waiting.delete(run);
    this.waiting.set(run, { turn, call: this.calls });
    for (const [oldest, entry] of this.waiting) {
      if (entry.call > this.calls - this.limit) break;
      this.waiting.delete(oldest);
      expired.push(entry.turn);
    }
    return expired;
  }
}
