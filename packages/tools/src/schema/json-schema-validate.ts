import { jsonEqual } from '../canonical-json.js';
import { pointerChild, resolveLocalRef } from './json-pointer.js';

/** One reason a value does not match its schema. */
export interface ValidationIssue {
  /** JSON Pointer into the value, '' for the root, e.g. `/path/0/name`. */
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
}

export interface ValidateOptions {
  /** The document `$ref`s resolve against. Default: the schema itself. */
  readonly root?: unknown;
  /** Stop after this many issues. Default 20. */
  readonly maxIssues?: number;
}

const DEFAULT_MAX_ISSUES = 20;
/** Guards `$ref` cycles that never consume the value. */
const MAX_REF_DEPTH = 64;

/**
 * Validates a value against a schema already accepted by
 * `checkSchemaNode`. Supports type, properties, required,
 * additionalProperties, enum, const, items, minItems/maxItems, uniqueItems,
 * minimum/maximum (and exclusive), multipleOf, minLength/maxLength (in
 * Unicode code points), pattern, anyOf/oneOf/allOf/not and local $ref.
 * Returns no issues when the value is valid.
 */
export function validateJsonSchema(schema: unknown, value: unknown, options: ValidateOptions = {}): readonly ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const state: State = { root: options.root ?? schema, issues, maxIssues: options.maxIssues ?? DEFAULT_MAX_ISSUES };
  validateNode(schema, value, '', state, 0);
  return issues.slice(0, state.maxIssues);
}

interface State {
  readonly root: unknown;
  readonly issues: ValidationIssue[];
  readonly maxIssues: number;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(type: string, value: unknown): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

function validateNode(schema: unknown, value: unknown, path: string, state: State, refDepth: number): void {
  if (state.issues.length >= state.maxIssues) return;
  if (schema === true || schema === undefined) return;
  const issue = (keyword: string, message: string, at = path): void => {
    state.issues.push({ path: at, keyword, message });
  };
  if (schema === false) return issue('false', 'no value is allowed here');
  const node = schema as Record<string, unknown>;

  if (typeof node['$ref'] === 'string') {
    if (refDepth >= MAX_REF_DEPTH) return issue('$ref', 'schema references nest too deeply');
    validateNode(resolveLocalRef(state.root, node['$ref']), value, path, state, refDepth + 1);
  }

  if ('type' in node) {
    const types = (Array.isArray(node['type']) ? node['type'] : [node['type']]) as string[];
    if (!types.some((type) => matchesType(type, value))) {
      return issue('type', `expected ${types.join(' or ')}, got ${typeOf(value)}`);
    }
  }
  if ('const' in node && !jsonEqual(node['const'], value)) {
    issue('const', `must equal ${JSON.stringify(node['const'])}`);
  }
  if (Array.isArray(node['enum']) && !node['enum'].some((allowed) => jsonEqual(allowed, value))) {
    issue('enum', `must be one of ${node['enum'].map((allowed) => JSON.stringify(allowed)).join(', ')}`);
  }

  if (typeof value === 'number') validateNumber(node, value, issue);
  else if (typeof value === 'string') validateString(node, value, issue);
  else if (Array.isArray(value)) validateArray(node, value, path, state, refDepth);
  else if (value !== null && typeof value === 'object') validateObject(node, value as Record<string, unknown>, path, state, refDepth);

  validateCombinators(node, value, path, state, refDepth);
}

type Report = (keyword: string, message: string, at?: string) => void;

function validateNumber(node: Record<string, unknown>, value: number, issue: Report): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = node;
  if (typeof minimum === 'number' && value < minimum) issue('minimum', `must be >= ${minimum}`);
  if (typeof maximum === 'number' && value > maximum) issue('maximum', `must be <= ${maximum}`);
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) issue('exclusiveMinimum', `must be > ${exclusiveMinimum}`);
  if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum) issue('exclusiveMaximum', `must be < ${exclusiveMaximum}`);
  if (typeof multipleOf === 'number' && !Number.isInteger(value / multipleOf)) issue('multipleOf', `must be a multiple of ${multipleOf}`);
}

function validateString(node: Record<string, unknown>, value: string, issue: Report): void {
  const { minLength, maxLength, pattern } = node;
  if (typeof minLength === 'number' || typeof maxLength === 'number') {
    const length = [...value].length;
    if (typeof minLength === 'number' && length < minLength) issue('minLength', `must have at least ${minLength} characters`);
    if (typeof maxLength === 'number' && length > maxLength) issue('maxLength', `must have at most ${maxLength} characters`);
  }
  if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value)) issue('pattern', `must match the pattern ${JSON.stringify(pattern)}`);
}

function validateArray(node: Record<string, unknown>, value: readonly unknown[], path: string, state: State, refDepth: number): void {
  const { minItems, maxItems, uniqueItems, items } = node;
  if (typeof minItems === 'number' && value.length < minItems) state.issues.push({ path, keyword: 'minItems', message: `must have at least ${minItems} items` });
  if (typeof maxItems === 'number' && value.length > maxItems) state.issues.push({ path, keyword: 'maxItems', message: `must have at most ${maxItems} items` });
  if (uniqueItems === true) {
    const duplicate = value.findIndex((item, index) => value.slice(0, index).some((earlier) => jsonEqual(earlier, item)));
    if (duplicate >= 0) state.issues.push({ path: pointerChild(path, duplicate), keyword: 'uniqueItems', message: 'repeats an earlier item' });
  }
  if (items !== undefined) {
    for (const [index, item] of value.entries()) validateNode(items, item, pointerChild(path, index), state, refDepth);
  }
}

function validateObject(node: Record<string, unknown>, value: Record<string, unknown>, path: string, state: State, refDepth: number): void {
  const properties = (node['properties'] ?? {}) as Record<string, unknown>;
  if (Array.isArray(node['required'])) {
    for (const name of node['required'] as string[]) {
      if (!Object.hasOwn(value, name)) state.issues.push({ path: pointerChild(path, name), keyword: 'required', message: 'is required' });
    }
  }
  const count = Object.keys(value).length;
  if (typeof node['minProperties'] === 'number' && count < node['minProperties']) state.issues.push({ path, keyword: 'minProperties', message: `must have at least ${node['minProperties']} properties` });
  if (typeof node['maxProperties'] === 'number' && count > node['maxProperties']) state.issues.push({ path, keyword: 'maxProperties', message: `must have at most ${node['maxProperties']} properties` });
  const additional = node['additionalProperties'];
  for (const name of Object.keys(value).sort()) {
    const at = pointerChild(path, name);
    if (Object.hasOwn(properties, name)) validateNode(properties[name], value[name], at, state, refDepth);
    else if (additional === false) state.issues.push({ path: at, keyword: 'additionalProperties', message: `is not an allowed property${Object.keys(properties).length > 0 ? ` (allowed: ${Object.keys(properties).sort().join(', ')})` : ''}` });
    else if (additional !== undefined && additional !== true) validateNode(additional, value[name], at, state, refDepth);
  }
}

function validateCombinators(node: Record<string, unknown>, value: unknown, path: string, state: State, refDepth: number): void {
  const branchIssues = (branch: unknown): readonly ValidationIssue[] => {
    const local: State = { root: state.root, issues: [], maxIssues: state.maxIssues };
    validateNode(branch, value, path, local, refDepth);
    return local.issues;
  };
  if (Array.isArray(node['allOf'])) {
    for (const branch of node['allOf']) validateNode(branch, value, path, state, refDepth);
  }
  if (Array.isArray(node['anyOf'])) {
    const results = node['anyOf'].map(branchIssues);
    if (!results.some((issues) => issues.length === 0)) {
      // The closest branch explains best what the caller probably meant.
      const closest = results.reduce((best, issues) => (issues.length < best.length ? issues : best));
      state.issues.push({ path, keyword: 'anyOf', message: `does not match any of the ${results.length} allowed schemas` }, ...closest);
    }
  }
  if (Array.isArray(node['oneOf'])) {
    const results = node['oneOf'].map(branchIssues);
    const matching = results.filter((issues) => issues.length === 0).length;
    if (matching === 0) {
      const closest = results.reduce((best, issues) => (issues.length < best.length ? issues : best));
      state.issues.push({ path, keyword: 'oneOf', message: `does not match any of the ${results.length} allowed schemas` }, ...closest);
    } else if (matching > 1) {
      state.issues.push({ path, keyword: 'oneOf', message: `matches ${matching} of the allowed schemas; exactly one must match` });
    }
  }
  if ('not' in node && branchIssues(node['not']).length === 0) {
    state.issues.push({ path, keyword: 'not', message: 'matches a schema it must not match' });
  }
}
