import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';

/** A non-empty string with at least one non-whitespace character. */
export function requireNonEmptyString(value: unknown, field: string): string {
  if (typeof value !== 'string') {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_TYPE',
      field,
      message: `${field} must be a string, got ${describe(value)}`,
    });
  }
  if (value.trim() === '') {
    throw new ContextWorkspaceInputError({ code: 'WORKSPACE_EMPTY_TEXT', field, message: `${field} must not be empty` });
  }
  return value;
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string') {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_TYPE',
      field,
      message: `${field} must be a string, got ${describe(value)}`,
    });
  }
  return value;
}

/** A decay or activation step: a finite number, zero or more. */
export function requireFactor(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_FACTOR',
      field,
      message: `${field} must be a finite number >= 0, got ${describe(value)}`,
    });
  }
  return value;
}

/** A finite number within [min, max]. */
export function requireNumberInRange(value: unknown, options: { field: string; min: number; max: number }): number {
  const { field, min, max } = options;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_NUMBER',
      field,
      message: `${field} must be a finite number in [${min}, ${max}], got ${describe(value)}`,
    });
  }
  return value;
}

export function requireInteger(value: unknown, options: { field: string; min: number }): number {
  const { field, min } = options;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_NUMBER',
      field,
      message: `${field} must be an integer >= ${min}, got ${describe(value)}`,
    });
  }
  return value;
}

export function requireRecord(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_TYPE',
      field,
      message: `${field} must be an object, got ${describe(value)}`,
    });
  }
  return value as Record<string, unknown>;
}

export function requireArray(value: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(value)) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_TYPE',
      field,
      message: `${field} must be an array, got ${describe(value)}`,
    });
  }
  return value;
}

/** A short, safe description of a bad value for an error message. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
