import { ConfigurationError, type JsonValue } from '@strata/context';
import { canonicalJson } from '../canonical-json.js';

/** Default: the third identical call in a row is refused. */
export const DEFAULT_REPEATED_CALL_LIMIT = 3;

/**
 * Counts identical calls (same tool, same arguments up to key order) made in
 * a row within one context. Any other call resets the streak.
 */
export class RepeatedCallGuard {
  readonly #limit: number;
  readonly #streaks = new Map<string, { key: string; count: number }>();

  constructor(limit: number = DEFAULT_REPEATED_CALL_LIMIT) {
    if (!Number.isInteger(limit) || limit < 2) {
      throw new ConfigurationError({ setting: 'repeatedCallLimit', message: `repeatedCallLimit must be an integer >= 2, got ${limit}` });
    }
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Records the call; returns how many identical calls in a row it makes (1 for a fresh one). */
  observe(contextId: string, toolName: string, input: JsonValue): number {
    const key = `${toolName}\u0000${canonicalJson(input)}`;
    const streak = this.#streaks.get(contextId);
    const count = streak !== undefined && streak.key === key ? streak.count + 1 : 1;
    this.#streaks.set(contextId, { key, count });
    return count;
  }

  /** True when a call observed as the `count`-th in a row must not run. */
  refuses(count: number): boolean {
    return count >= this.#limit;
  }
}
