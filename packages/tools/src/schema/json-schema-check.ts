import { pointerChild, resolveLocalRef } from './json-pointer.js';

/** What is wrong with a schema, at which JSON Pointer inside it. */
export interface SchemaProblem {
  /** JSON Pointer into the schema, '' for the root, e.g. `/properties/items/minItems`. */
  readonly path: string;
  readonly message: string;
}

export const JSON_SCHEMA_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

const NON_NEGATIVE_INTEGER_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const;
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions'] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a tool's parameter schema against the JSON Schema subset the
 * validator understands; returns the first problem, or undefined. The root
 * must be `{"type":"object"}`, as providers require for tool parameters.
 * Unknown keywords (title, description, default, format, ...) are allowed
 * and ignored by validation.
 */
export function checkToolParameterSchema(schema: unknown): SchemaProblem | undefined {
  if (!isPlainObject(schema)) return { path: '', message: 'the parameter schema must be a JSON object' };
  if (schema['type'] !== 'object') {
    return { path: '/type', message: `the root of a parameter schema must have "type": "object" (found ${JSON.stringify(schema['type']) ?? 'nothing'})` };
  }
  return checkSchemaNode(schema, '', schema);
}

/** Checks any JSON Schema node (not only a tool root) of the supported subset. */
export function checkSchemaNode(node: unknown, path: string, root: unknown): SchemaProblem | undefined {
  if (typeof node === 'boolean') return undefined;
  if (!isPlainObject(node)) return { path, message: 'a schema must be a JSON object or a boolean' };
  return (
    checkType(node, path) ??
    checkRequired(node, path) ??
    checkNumbers(node, path) ??
    checkEnum(node, path) ??
    checkPattern(node, path) ??
    checkRef(node, path, root) ??
    checkSubschemas(node, path, root)
  );
}

function checkType(node: Record<string, unknown>, path: string): SchemaProblem | undefined {
  if (!('type' in node)) return undefined;
  const type = node['type'];
  const types = Array.isArray(type) ? type : [type];
  if (types.length === 0) return { path: pointerChild(path, 'type'), message: '"type" must not be an empty list' };
  for (const [index, entry] of types.entries()) {
    if (typeof entry !== 'string' || !JSON_SCHEMA_TYPES.has(entry)) {
      const at = Array.isArray(type) ? pointerChild(pointerChild(path, 'type'), index) : pointerChild(path, 'type');
      return { path: at, message: `unknown type ${JSON.stringify(entry)}; expected one of ${[...JSON_SCHEMA_TYPES].join(', ')}` };
    }
  }
  if (new Set(types).size !== types.length) return { path: pointerChild(path, 'type'), message: '"type" lists a type twice' };
  return undefined;
}

function checkRequired(node: Record<string, unknown>, path: string): SchemaProblem | undefined {
  if (!('required' in node)) return undefined;
  const required = node['required'];
  const at = pointerChild(path, 'required');
  if (!Array.isArray(required)) return { path: at, message: '"required" must be a list of property names' };
  const seen = new Set<string>();
  for (const [index, name] of required.entries()) {
    if (typeof name !== 'string') return { path: pointerChild(at, index), message: '"required" entries must be strings' };
    if (seen.has(name)) return { path: pointerChild(at, index), message: `"required" lists ${JSON.stringify(name)} twice` };
    seen.add(name);
  }
  return undefined;
}

function checkNumbers(node: Record<string, unknown>, path: string): SchemaProblem | undefined {
  for (const keyword of NON_NEGATIVE_INTEGER_KEYWORDS) {
    const value = node[keyword];
    if (value !== undefined && !(typeof value === 'number' && Number.isInteger(value) && value >= 0)) {
      return { path: pointerChild(path, keyword), message: `"${keyword}" must be a non-negative integer` };
    }
  }
  for (const keyword of NUMBER_KEYWORDS) {
    const value = node[keyword];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value))) {
      return { path: pointerChild(path, keyword), message: `"${keyword}" must be a finite number` };
    }
  }
  if (typeof node['multipleOf'] === 'number' && node['multipleOf'] <= 0) {
    return { path: pointerChild(path, 'multipleOf'), message: '"multipleOf" must be greater than 0' };
  }
  if ('uniqueItems' in node && typeof node['uniqueItems'] !== 'boolean') {
    return { path: pointerChild(path, 'uniqueItems'), message: '"uniqueItems" must be a boolean' };
  }
  return undefined;
}

function checkEnum(node: Record<string, unknown>, path: string): SchemaProblem | undefined {
  if (!('enum' in node)) return undefined;
  const values = node['enum'];
  if (!Array.isArray(values) || values.length === 0) return { path: pointerChild(path, 'enum'), message: '"enum" must be a non-empty list' };
  return undefined;
}

function checkPattern(node: Record<string, unknown>, path: string): SchemaProblem | undefined {
  if (!('pattern' in node)) return undefined;
  const pattern = node['pattern'];
  const at = pointerChild(path, 'pattern');
  if (typeof pattern !== 'string') return { path: at, message: '"pattern" must be a string' };
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return { path: at, message: `"pattern" is not a valid regular expression: ${(error as Error).message}` };
  }
  return undefined;
}

function checkRef(node: Record<string, unknown>, path: string, root: unknown): SchemaProblem | undefined {
  if (!('$ref' in node)) return undefined;
  const ref = node['$ref'];
  const at = pointerChild(path, '$ref');
  if (typeof ref !== 'string') return { path: at, message: '"$ref" must be a string' };
  if (resolveLocalRef(root, ref) === undefined) return { path: at, message: `"$ref" ${JSON.stringify(ref)} does not resolve inside this schema (only local "#/..." references are supported)` };
  return undefined;
}

function checkSubschemas(node: Record<string, unknown>, path: string, root: unknown): SchemaProblem | undefined {
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    if (!(keyword in node)) continue;
    const map = node[keyword];
    const at = pointerChild(path, keyword);
    if (!isPlainObject(map)) return { path: at, message: `"${keyword}" must be an object of schemas` };
    for (const [name, child] of Object.entries(map)) {
      const problem = checkSchemaNode(child, pointerChild(at, name), root);
      if (problem !== undefined) return problem;
    }
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    if (!(keyword in node)) continue;
    const list = node[keyword];
    const at = pointerChild(path, keyword);
    if (!Array.isArray(list) || list.length === 0) return { path: at, message: `"${keyword}" must be a non-empty list of schemas` };
    for (const [index, child] of list.entries()) {
      const problem = checkSchemaNode(child, pointerChild(at, index), root);
      if (problem !== undefined) return problem;
    }
  }
  if ('items' in node && Array.isArray(node['items'])) {
    return { path: pointerChild(path, 'items'), message: '"items" must be one schema (a list of schemas is not supported)' };
  }
  for (const keyword of ['items', 'additionalProperties', 'not'] as const) {
    if (!(keyword in node)) continue;
    const problem = checkSchemaNode(node[keyword], pointerChild(path, keyword), root);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
