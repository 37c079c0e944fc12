import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import Ajv07 from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pointerChild } from './json-pointer.js';
import { type ValidationIssue, validationIssues } from './json-schema-issues.js';

/** What is wrong with a schema, at which JSON Pointer inside it. */
export interface SchemaProblem {
  /** JSON Pointer into the schema, '' for the root, e.g. `/properties/items/minItems`. */
  readonly path: string;
  readonly message: string;
}

/** Checks a value against a compiled schema; no issues when it is valid. */
export type JsonSchemaValidator = (value: unknown, options?: { readonly maxIssues?: number }) => readonly ValidationIssue[];

/** Issues reported per value unless the caller says otherwise. */
const DEFAULT_MAX_ISSUES = 20;

const DIALECTS = {
  'draft-2020-12': /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/,
  'draft-07': /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/,
} as const;
type Dialect = keyof typeof DIALECTS;

type Ajv = InstanceType<typeof Ajv2020.default> | InstanceType<typeof Ajv07.default>;
const instances = new Map<Dialect, Ajv>();
/** One compile per schema object, shared by every registry that registers it. */
const compiled = new WeakMap<object, { validate: JsonSchemaValidator } | { problem: SchemaProblem }>();

/**
 * Compiles a tool's parameter schema with ajv, once per schema object. The
 * dialect follows `$schema`: draft 2020-12 (the default) or draft-07; any
 * other is a problem. The root must be `{"type":"object"}`, as providers
 * require for tool parameters. Formats are checked (`ajv-formats`); unknown
 * keywords and unknown formats are ignored, as JSON Schema allows. Returns
 * the validator, or the first problem with its JSON Pointer in the schema.
 */
export function compileParameterSchema(schema: unknown): { validate: JsonSchemaValidator } | { problem: SchemaProblem } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { problem: { path: '', message: 'the parameter schema must be a JSON object' } };
  }
  const cached = compiled.get(schema);
  if (cached !== undefined) return cached;
  const result = compileObject(schema as AnySchemaObject);
  compiled.set(schema, result);
  return result;
}

function compileObject(schema: AnySchemaObject): { validate: JsonSchemaValidator } | { problem: SchemaProblem } {
  if (schema['type'] !== 'object') {
    return { problem: { path: '/type', message: `the root of a parameter schema must have "type": "object" (found ${JSON.stringify(schema['type']) ?? 'nothing'})` } };
  }
  const declared: unknown = schema['$schema'];
  const dialect = declared === undefined ? 'draft-2020-12' : (Object.keys(DIALECTS) as Dialect[]).find((name) => typeof declared === 'string' && DIALECTS[name].test(declared));
  if (dialect === undefined) {
    return { problem: { path: '/$schema', message: `unsupported "$schema" ${JSON.stringify(declared)}; use draft 2020-12 (the default) or draft-07` } };
  }
  const ajv = ajvFor(dialect);
  if (!ajv.validateSchema(schema)) return { problem: metaSchemaProblem(ajv.errors ?? []) };
  const prototypeKey = findPrototypeKey(schema, '');
  if (prototypeKey !== undefined) return { problem: { path: prototypeKey, message: 'a property named "__proto__" is not supported: the validator would treat it as an unknown property' } };
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return { problem: compileProblem(schema, error) };
  } finally {
    // The validator keeps what it needs; ajv's own cache would hold every schema ever compiled.
    ajv.removeSchema(schema);
  }
  return {
    validate: (value, options = {}) => (validate(value) ? [] : validationIssues(validate.errors ?? [], options.maxIssues ?? DEFAULT_MAX_ISSUES)),
  };
}

/**
 * Where a schema names a `__proto__` property (`properties`, `required`,
 * `dependentRequired`), which ajv mistakes for an additional property; such
 * a schema is refused rather than validated wrongly.
 */
function findPrototypeKey(node: unknown, path: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const found = findPrototypeKey(item, `${path}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'properties' || key === 'dependentRequired' || key === 'dependentSchemas') && typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) return `${path}/${key}/__proto__`;
    if (key === 'required' && Array.isArray(value) && value.includes('__proto__')) return `${path}/required`;
    const found = findPrototypeKey(value, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function ajvFor(dialect: Dialect): Ajv {
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    // allErrors: the model fixes every mistake in one go; verbose: messages quote the schema and the value.
    // strict: false: unknown keywords and formats are ignored, not fatal. addUsedSchema: false: two tools may share an `$id`.
    // validateSchema: false: compileObject checks against the meta-schema itself, once, to report where.
    const options = { allErrors: true, verbose: true, strict: false, addUsedSchema: false, validateSchema: false, logger: false } as const;
    ajv = dialect === 'draft-07' ? new Ajv07.default(options) : new Ajv2020.default(options);
    addFormats.default(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The most specific of ajv's meta-schema errors: the deepest path, the first among equals. */
function metaSchemaProblem(errors: readonly ErrorObject[]): SchemaProblem {
  const depth = (path: string): number => path.split('/').length;
  const error = errors.reduce<ErrorObject | undefined>((best, candidate) => (best === undefined || depth(candidate.instancePath) > depth(best.instancePath) ? candidate : best), undefined);
  if (error === undefined) return { path: '', message: 'does not match the JSON Schema meta-schema' };
  if (error.keyword === 'uniqueItems') {
    return { path: pointerChild(error.instancePath, Math.max(Number(error.params['i']), Number(error.params['j']))), message: 'repeats an earlier entry' };
  }
  const allowed = error.params['allowedValues'];
  const message = Array.isArray(allowed) ? `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}` : (error.message ?? 'is not valid here');
  return { path: error.instancePath, message };
}

/**
 * A schema the meta-schema accepts but ajv cannot compile: an unresolvable
 * `$ref`, an empty `enum`, a `pattern` that is not a regular expression
 * (with the `u` flag). Ajv names no location for these; the first node that
 * has the problem is found here so the error can name it.
 */
function compileProblem(schema: AnySchemaObject, error: unknown): SchemaProblem {
  const message = error instanceof Error ? error.message : String(error);
  const missingRef = (error as { missingRef?: unknown }).missingRef;
  const checks: ReadonlyArray<[keyword: string, isBroken: (value: unknown) => boolean, message: string]> = [
    ['$ref', (value) => typeof missingRef === 'string' && value === missingRef, `"$ref" ${JSON.stringify(missingRef)} does not resolve inside this schema`],
    ['enum', (value) => Array.isArray(value) && value.length === 0, '"enum" must be a non-empty list'],
    ['pattern', (value) => typeof value === 'string' && !isRegExp(value), `"pattern" is not a valid regular expression: ${message}`],
  ];
  for (const [keyword, isBroken, problem] of checks) {
    const path = findKeyword(schema, '', keyword, isBroken);
    if (path !== undefined) return { path, message: problem };
  }
  return { path: '', message };
}

function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** Values that are data, not schemas: never searched for keywords. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);

/** The JSON Pointer of the first `keyword` whose value `isBroken`, searching the schema depth first. */
function findKeyword(node: unknown, path: string, keyword: string, isBroken: (value: unknown) => boolean): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  for (const [key, value] of Object.entries(node)) {
    const at = pointerChild(path, key);
    if (key === keyword && isBroken(value)) return at;
    if (DATA_KEYWORDS.has(key) && !Array.isArray(node)) continue;
    const found = findKeyword(value, at, keyword, isBroken);
    if (found !== undefined) return found;
  }
  return undefined;
}
