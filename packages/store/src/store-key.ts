import { StoreInputError } from './errors/store-input-error.js';
import { isWellFormedText } from './well-formed-text.js';

/**
 * Checks an identifier a store keys by (context id, tool call id, tool name):
 * a non-empty string, no NUL (PostgreSQL text cannot hold it) and no lone
 * surrogate (UTF-8 cannot), so every backend keeps it exactly.
 */
export function requireKey(value: unknown, options: { field: string; operation: string }): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new StoreInputError({ code: 'STORE_KEY_INVALID', culprit: options.field, message: `${options.operation}: ${options.field} must be a non-empty string` });
  }
  if (value.includes('\u0000') || !isWellFormedText(value)) {
    throw new StoreInputError({
      code: 'STORE_KEY_INVALID',
      culprit: options.field,
      message: `${options.operation}: ${options.field} ${JSON.stringify(value)} holds a NUL or a lone surrogate`,
    });
  }
  return value;
}
