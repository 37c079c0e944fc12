import type { ErrorObject } from 'ajv';
import { pointerChild } from './json-pointer.js';

/** One reason a value does not match its schema: what the model reads on a bad tool call. */
export interface ValidationIssue {
  /** JSON Pointer into the value, '' for the root, e.g. `/path/0/name`. */
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

/**
 * Turns ajv's errors (collected with `allErrors` and `verbose`) into our
 * issues: the path names the offending property itself (a missing required
 * or dependent property, an additional property, a repeated array item),
 * the message says what was expected. Of an `anyOf` / `oneOf` that no branch
 * matched, only the closest branch (fewest errors, the first on a tie) is
 * explained. Issues are sorted by where they arose in the value, an object's
 * own issues before its properties', so the same call gives the same text.
 */
export function validationIssues(errors: readonly ErrorObject[], maxIssues: number): readonly ValidationIssue[] {
  return pruneUnmatchedBranches(errors)
    .map((error, index) => ({ error, index }))
    .sort((left, right) => compareOrigin(left.error, right.error) || left.index - right.index)
    .slice(0, maxIssues)
    .map(({ error }) => toIssue(error));
}

function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  const at = (token: unknown): string => pointerChild(error.instancePath, String(token));
  switch (error.keyword) {
    case 'type':
      return issue(error, `expected ${[error.schema].flat().join(' or ')}, got ${typeOf(error.data)}`);
    case 'required':
      return issue(error, 'is required', at(params['missingProperty']));
    case 'dependentRequired':
      return issue(error, `is required when "${String(params['property'])}" is present`, at(params['missingProperty']));
    case 'additionalProperties': {
      const allowed = Object.keys(((error.parentSchema ?? {}) as { properties?: object }).properties ?? {}).sort();
      return issue(error, `is not an allowed property${allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : ''}`, at(params['additionalProperty']));
    }
    case 'uniqueItems':
      return issue(error, 'repeats an earlier item', at(Math.max(Number(params['i']), Number(params['j']))));
    case 'enum':
      return issue(error, `must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`);
    case 'const':
      return issue(error, `must equal ${JSON.stringify(params['allowedValue'])}`);
    case 'pattern':
      return issue(error, `must match the pattern ${JSON.stringify(params['pattern'])}`);
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties': {
      const unit = error.keyword.endsWith('Length') ? 'characters' : error.keyword.endsWith('Items') ? 'items' : 'properties';
      return issue(error, `must have ${error.keyword.startsWith('min') ? 'at least' : 'at most'} ${String(params['limit'])} ${unit}`);
    }
    case 'anyOf':
    case 'oneOf': {
      const branches = (error.schema as unknown[]).length;
      return Array.isArray(params['passingSchemas'])
        ? issue(error, `matches more than one of the ${branches} allowed schemas; exactly one must match`)
        : issue(error, `does not match any of the ${branches} allowed schemas`);
    }
    case 'not':
      return issue(error, 'matches a schema it must not match');
    case 'false schema':
      return { path: error.instancePath, keyword: 'false', message: 'no value is allowed here' };
    default:
      // minimum, maximum, multipleOf, format, if, items, contains, ...: ajv's own wording says what was expected.
      return issue(error, error.message ?? `does not satisfy "${error.keyword}"`);
  }
}

function issue(error: ErrorObject, message: string, path = error.instancePath): ValidationIssue {
  return { path, keyword: error.keyword, message };
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Drops the errors of every branch but the closest of an `anyOf` / `oneOf`
 * that no branch matched. Branches are told apart by schema path, so errors
 * reached through a `$ref` inside a branch (their schema path is the
 * referenced schema's) are all kept.
 */
function pruneUnmatchedBranches(errors: readonly ErrorObject[]): readonly ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  for (const combinator of errors) {
    if ((combinator.keyword !== 'anyOf' && combinator.keyword !== 'oneOf') || Array.isArray(combinator.params['passingSchemas'])) continue;
    const branches = new Map<number, ErrorObject[]>();
    const prefix = `${combinator.schemaPath}/`;
    for (const error of errors) {
      if (!error.schemaPath.startsWith(prefix) || !isWithin(error.instancePath, combinator.instancePath)) continue;
      const branch = Number(error.schemaPath.slice(prefix.length).split('/')[0]);
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const closest = [...branches.entries()].reduce<[number, ErrorObject[]] | undefined>(
      (best, entry) => (best === undefined || entry[1].length < best[1].length || (entry[1].length === best[1].length && entry[0] < best[0]) ? entry : best),
      undefined,
    );
    for (const [branch, branchErrors] of branches) if (branch !== closest?.[0]) for (const error of branchErrors) dropped.add(error);
  }
  return errors.filter((error) => !dropped.has(error));
}

function isWithin(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/**
 * Where in the value an error arose, token by token (array indexes
 * numerically); at one place, a combinator's own error (anyOf, oneOf, if)
 * before the errors that explain it.
 */
function compareOrigin(left: ErrorObject, right: ErrorObject): number {
  const leftTokens = left.instancePath.split('/');
  const rightTokens = right.instancePath.split('/');
  for (let index = 1; index < Math.min(leftTokens.length, rightTokens.length); index += 1) {
    const a = leftTokens[index]!;
    const b = rightTokens[index]!;
    if (a === b) continue;
    const numeric = /^\d+$/.test(a) && /^\d+$/.test(b);
    return numeric ? Number(a) - Number(b) : a < b ? -1 : 1;
  }
  return leftTokens.length - rightTokens.length || combinatorRank(left) - combinatorRank(right);
}

function combinatorRank(error: ErrorObject): number {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if' ? 0 : 1;
}
