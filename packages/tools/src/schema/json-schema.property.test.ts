import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileParameterSchema } from './json-schema-validator.js';

/** A schema that accepts exactly `value` (and values equal to it), built from common keywords. */
function exactSchema(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' };
  if (typeof value === 'boolean') return { type: 'boolean', const: value };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number', minimum: value, maximum: value };
  if (typeof value === 'string') {
    const length = [...value].length;
    return { type: 'string', minLength: length, maxLength: length, enum: [value] };
  }
  if (Array.isArray(value)) {
    return value.length === 0
      ? { type: 'array', maxItems: 0 }
      : { type: 'array', minItems: value.length, maxItems: value.length, items: { anyOf: value.map(exactSchema) } };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return {
    type: 'object',
    properties: Object.fromEntries(entries.map(([key, item]) => [key, exactSchema(item)])),
    required: entries.map(([key]) => key),
    additionalProperties: false,
  };
}

/** Whether a JSON value has an object key `__proto__` anywhere (schemas naming it are refused, see below). */
function hasPrototypeKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasPrototypeKey);
  return Object.hasOwn(value, '__proto__') || Object.values(value).some(hasPrototypeKey);
}

test('a schema naming a "__proto__" property is refused with its path, not validated wrongly', () => {
  const compiled = compileParameterSchema(JSON.parse('{"type":"object","properties":{"data":{"type":"object","properties":{"__proto__":{"type":"integer"}}}}}'));
  assert.deepEqual('problem' in compiled && compiled.problem.path, '/properties/data/properties/__proto__');
});

test('property: a value validates against a schema built from it; an extra property is reported at its path', () => {
  fc.assert(
    fc.property(fc.jsonValue().filter((value) => !hasPrototypeKey(value)), (value) => {
      const wrapped = { type: 'object', properties: { data: exactSchema(value) }, required: ['data'], additionalProperties: false };
      const compiled = compileParameterSchema(wrapped);
      assert.ok('validate' in compiled, JSON.stringify(compiled));
      assert.deepEqual(compiled.validate({ data: value }), []);
      const issues = compiled.validate({ data: value, 'extra/key': 1 });
      assert.deepEqual(issues.map((issue) => [issue.path, issue.keyword]), [['/extra~1key', 'additionalProperties']]);
      assert.deepEqual(compiled.validate({}).map((issue) => issue.path), ['/data']);
    }),
    { numRuns: 300 },
  );
});
