import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkToolParameterSchema } from './json-schema-check.js';

test('accepts a well-formed parameter schema with nested keywords', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, pattern: '^/' },
      items: { type: 'array', items: { $ref: '#/$defs/item' }, maxItems: 3 },
      mode: { enum: ['a', 'b'] },
      choice: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
    },
    required: ['path'],
    additionalProperties: false,
    $defs: { item: { type: 'object', properties: { name: { type: 'string' } } } },
  };
  assert.equal(checkToolParameterSchema(schema), undefined);
});

test('names the JSON Pointer of the first malformed keyword', () => {
  const cases: ReadonlyArray<[unknown, string]> = [
    [{ type: 'string' }, '/type'],
    ['not a schema', ''],
    [{ type: 'object', properties: { a: { type: 'strng' } } }, '/properties/a/type'],
    [{ type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { n: { minLength: -1 } } } } } }, '/properties/list/items/properties/n/minLength'],
    [{ type: 'object', required: 'a' }, '/required'],
    [{ type: 'object', required: ['a', 'a'] }, '/required/1'],
    [{ type: 'object', properties: { e: { enum: [] } } }, '/properties/e/enum'],
    [{ type: 'object', properties: { p: { type: 'string', pattern: '(' } } }, '/properties/p/pattern'],
    [{ type: 'object', properties: { r: { $ref: '#/$defs/missing' } } }, '/properties/r/$ref'],
    [{ type: 'object', properties: { u: { anyOf: [] } } }, '/properties/u/anyOf'],
    [{ type: 'object', properties: { u: { oneOf: [{ type: 'string' }, 7] } } }, '/properties/u/oneOf/1'],
    [{ type: 'object', properties: { m: { maximum: 'ten' } } }, '/properties/m/maximum'],
    [{ type: 'object', properties: { 'a/b': { type: ['string', 'thing'] } } }, '/properties/a~1b/type/1'],
    [{ type: 'object', additionalProperties: { type: 5 } }, '/additionalProperties/type'],
  ];
  for (const [schema, path] of cases) {
    const problem = checkToolParameterSchema(schema);
    assert.ok(problem !== undefined, `expected a problem for ${JSON.stringify(schema)}`);
    assert.equal(problem.path, path, JSON.stringify(schema));
    assert.ok(problem.message.length > 0);
  }
});
