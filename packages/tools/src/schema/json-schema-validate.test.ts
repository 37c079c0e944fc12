import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateJsonSchema } from './json-schema-validate.js';

const schema = {
  type: 'object',
  properties: {
    path: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 2, maxLength: 4 }, size: { type: 'integer', minimum: 1, maximum: 9 } },
        required: ['name'],
        additionalProperties: false,
      },
    },
    mode: { enum: ['read', 'write'] },
    kind: { const: 'file' },
    target: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    either: { anyOf: [{ type: 'string', minLength: 3 }, { type: 'boolean' }] },
  },
  required: ['path'],
  additionalProperties: false,
};

test('a valid value has no issues', () => {
  assert.deepEqual(validateJsonSchema(schema, { path: [{ name: 'ab', size: 3 }], mode: 'read', kind: 'file', target: 4, either: true }), []);
});

test('issues carry JSON Pointer paths into the value', () => {
  const issues = validateJsonSchema(schema, { path: [{ name: 'ok' }, { size: 10, extra: 1 }], mode: 'delete', kind: 'dir', colour: 'red' });
  // Properties in sorted key order; within an object, required before its properties.
  assert.deepEqual(
    issues.map((issue) => [issue.path, issue.keyword]),
    [
      ['/colour', 'additionalProperties'],
      ['/kind', 'const'],
      ['/mode', 'enum'],
      ['/path/1/name', 'required'],
      ['/path/1/extra', 'additionalProperties'],
      ['/path/1/size', 'maximum'],
    ],
  );
  const byPath = new Map(issues.map((issue) => [issue.path, issue.keyword]));
  assert.equal(byPath.get('/path/1/name'), 'required');
  assert.equal(byPath.get('/path/1/extra'), 'additionalProperties');
  assert.equal(byPath.get('/path/1/size'), 'maximum');
  assert.equal(byPath.get('/mode'), 'enum');
  assert.equal(byPath.get('/kind'), 'const');
  assert.equal(byPath.get('/colour'), 'additionalProperties');
  assert.equal(issues.length, 6);
});

test('types: integer is a number, not the reverse; null and arrays are distinct', () => {
  const numbers = { type: 'object', properties: { n: { type: 'number' }, i: { type: 'integer' }, x: { type: ['null', 'array'] } } };
  assert.deepEqual(validateJsonSchema(numbers, { n: 3, i: 3, x: null }), []);
  assert.deepEqual(validateJsonSchema(numbers, { x: [] }), []);
  const issues = validateJsonSchema(numbers, { i: 1.5, n: 'one', x: {} });
  assert.deepEqual(issues.map((issue) => [issue.path, issue.message]), [
    ['/i', 'expected integer, got number'],
    ['/n', 'expected number, got string'],
    ['/x', 'expected null or array, got object'],
  ]);
});

test('string length counts code points, so an astral character is one', () => {
  const one = { type: 'string', minLength: 1, maxLength: 1 };
  assert.deepEqual(validateJsonSchema(one, '😀'), []);
  assert.equal(validateJsonSchema(one, '😀😀')[0]?.keyword, 'maxLength');
});

test('oneOf needs exactly one match; anyOf reports the closest branch', () => {
  const oneOf = { oneOf: [{ type: 'number' }, { type: 'integer' }] };
  assert.equal(validateJsonSchema(oneOf, 2)[0]?.keyword, 'oneOf');
  assert.deepEqual(validateJsonSchema(oneOf, 2.5), []);
  const anyOf = { anyOf: [{ type: 'string', minLength: 3 }, { type: 'boolean' }] };
  const issues = validateJsonSchema(anyOf, 'ab');
  assert.deepEqual(issues.map((issue) => issue.keyword), ['anyOf', 'minLength']);
});

test('local $ref, recursive schemas and the issue cap', () => {
  const tree = {
    $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } }, label: { type: 'string' } } } },
    $ref: '#/$defs/node',
  };
  assert.deepEqual(validateJsonSchema(tree, { children: [{ children: [{ label: 'x' }] }] }), []);
  assert.deepEqual(validateJsonSchema(tree, { children: [{ children: [{ label: 1 }] }] }).map((issue) => issue.path), ['/children/0/children/0/label']);
  const many = { type: 'array', items: { type: 'string' } };
  assert.equal(validateJsonSchema(many, Array.from({ length: 50 }, () => 1), { maxIssues: 5 }).length, 5);
});
