import { ConfigurationError } from '@strata/context';

/** `readNewest`'s limit: a whole number, at least 1. Throws a `ConfigurationError` naming it otherwise. */
export function assertReadLimit(limit: unknown): asserts limit is number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw new ConfigurationError({ setting: 'limit', message: `readNewest limit must be a whole number of at least 1, got ${String(limit)}` });
  }
}
