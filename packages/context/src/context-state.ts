import { ContextInputError, describeKind } from './errors/context-input-error.js';

/**
 * Where the last turn's window started: the composed history's message at
 * the start of the kept suffix, by its position and a fingerprint of its
 * content. Both are data, so a fresh process finds the same start.
 */
export interface WindowStartMark {
  /** Index of the message in the composed history (the history as the composer shows it). */
  readonly index: number;
  /** `messageFingerprint` of that message. */
  readonly fingerprint: string;
  /**
   * The units the window kept before that suffix (the pinned ones, and older
   * small units a fresh cut took past one too big for what was left), each by
   * the position and fingerprint of its first message, so the next turn
   * keeps them too and the bytes before the suffix do not move.
   */
  readonly before?: readonly MessageMark[];
}

/** A message of the composed history, by its position and `messageFingerprint`. */
export interface MessageMark {
  readonly index: number;
  readonly fingerprint: string;
}

/**
 * What the assembler must remember of a context between turns to send the
 * same bytes: returned with each assembled turn, persisted with the session
 * (in the same atomic version as its history) and passed back with the next
 * request. Everything else the assembler keeps is a cache: losing it costs
 * time, never a byte. Versioned and JSON-serialisable; a persisted format.
 */
export interface ContextStateV1 {
  readonly version: 1;
  /** Where the window started last turn, so the prompt prefix (and the provider's cache) stays while it fits. */
  readonly windowStart?: WindowStartMark;
  /**
   * The model step (assistant messages in the history) at which the context
   * was first compacted or cut for size: from then on it lives at its cap.
   */
  readonly capacityStep?: number;
  /** What the last assembled input was counted at: what an overflow recovery shrinks from. */
  readonly lastInputTokens?: number;
  /**
   * The usage calibration: the largest ratio of the provider's input count
   * to ours seen in this context (above 1 only: see `calibrateContextState`).
   * Turns are assembled for the cap divided by it.
   */
  readonly inputTokenRatio?: number;
  /** The last model call's input as we counted it and as the provider reported it: what the next report is compared with. */
  readonly lastUsage?: UsageCounts;
}

/** One model call's input tokens, by our count and by the provider's. */
export interface UsageCounts {
  readonly counted: number;
  readonly reported: number;
}

export type ContextState = ContextStateV1;

export const CONTEXT_STATE_VERSION = 1;

/** The state of a context never assembled (and of a session stored before context states existed). */
export const INITIAL_CONTEXT_STATE: ContextState = Object.freeze({ version: CONTEXT_STATE_VERSION });

/**
 * Reads a context state from any value: `undefined` and `null` are the
 * initial state; anything else must be a state this version of Strata
 * wrote, or a `ContextInputError` names the field.
 */
export function checkContextState(value: unknown, path = 'state'): ContextState {
  if (value === undefined || value === null) return INITIAL_CONTEXT_STATE;
  if (typeof value !== 'object' || Array.isArray(value)) throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path, expected: 'a context state object', actual: value });
  const state = value as Record<string, unknown>;
  if (state.version !== CONTEXT_STATE_VERSION) {
    throw new ContextInputError({ code: 'CONTEXT_STATE_INVALID', culprit: `${path}.version`, message: `${path}.version: expected ${CONTEXT_STATE_VERSION}, got ${typeof state.version === 'number' ? state.version : describeKind(state.version)}` });
  }
  const capacityStep = optionalCount(state.capacityStep, `${path}.capacityStep`);
  const lastInputTokens = optionalCount(state.lastInputTokens, `${path}.lastInputTokens`);
  const windowStart = state.windowStart === undefined ? undefined : checkWindowStart(state.windowStart, `${path}.windowStart`);
  const inputTokenRatio = state.inputTokenRatio;
  if (inputTokenRatio !== undefined && !(typeof inputTokenRatio === 'number' && Number.isFinite(inputTokenRatio) && inputTokenRatio >= 1)) {
    throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path: `${path}.inputTokenRatio`, expected: 'a finite number of at least 1', actual: inputTokenRatio });
  }
  const lastUsage = state.lastUsage === undefined ? undefined : checkUsageCounts(state.lastUsage, `${path}.lastUsage`);
  return withDefined({ version: CONTEXT_STATE_VERSION, windowStart, capacityStep, lastInputTokens, inputTokenRatio, lastUsage });
}

function checkUsageCounts(value: unknown, path: string): UsageCounts {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path, expected: 'an object', actual: value });
  const { counted, reported } = value as Record<string, unknown>;
  return Object.freeze({ counted: optionalCount(counted, `${path}.counted`) ?? missing(`${path}.counted`), reported: optionalCount(reported, `${path}.reported`) ?? missing(`${path}.reported`) });
}

/** A state with its `undefined` fields left out, so it serialises and compares the same however it was built. */
export function withDefined(state: { readonly [Field in keyof ContextState]: ContextState[Field] | undefined }): ContextState {
  return Object.freeze(Object.fromEntries(Object.entries(state).filter(([, value]) => value !== undefined))) as unknown as ContextState;
}

function checkWindowStart(value: unknown, path: string): WindowStartMark {
  const mark = checkMessageMark(value, path);
  const { before } = value as Record<string, unknown>;
  if (before === undefined) return mark;
  if (!Array.isArray(before)) throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path: `${path}.before`, expected: 'an array', actual: before });
  return Object.freeze({ ...mark, before: Object.freeze(before.map((entry, position) => checkMessageMark(entry, `${path}.before[${position}]`))) });
}

function checkMessageMark(value: unknown, path: string): MessageMark {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path, expected: 'an object', actual: value });
  const { index, fingerprint } = value as Record<string, unknown>;
  if (typeof fingerprint !== 'string' || fingerprint.length === 0) throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path: `${path}.fingerprint`, expected: 'a non-empty string', actual: fingerprint });
  return Object.freeze({ index: optionalCount(index, `${path}.index`) ?? missing(`${path}.index`), fingerprint });
}

function optionalCount(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw ContextInputError.unexpected({ code: 'CONTEXT_STATE_INVALID', path, expected: 'a non-negative integer', actual: value });
}

function missing(path: string): never {
  throw new ContextInputError({ code: 'CONTEXT_STATE_INVALID', culprit: path, message: `${path}: expected a non-negative integer, got undefined` });
}
