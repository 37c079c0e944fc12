import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type JsonSchemaValidator, type SchemaProblem, compileParameterSchema } from './json-schema-validator.js';

function validator(schema: Record<string, unknown>): JsonSchemaValidator {
  const compiled = compileParameterSchema(schema);
  assert.ok('validate' in compiled, `expected ${JSON.stringify(schema)} to compile: ${JSON.stringify(compiled)}`);
  return compiled.validate;
}

function problem(schema: unknown): SchemaProblem {
  const compiled = compileParameterSchema(schema);
  assert.ok('problem' in compiled, `expected a problem for ${JSON.stringify(schema)}`);
  return compiled.problem;
}

/** A parameter schema with one property `value` of the given schema, so any keyword can be tried on a non-object. */
function property(schema: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchemaValidator {
  return validator({ type: 'object', properties: { value: schema }, ...extra });
}

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
  assert.deepEqual(validator(schema)({ path: [{ name: 'ab', size: 3 }], mode: 'read', kind: 'file', target: 4, either: true }), []);
});

test('issues carry JSON Pointer paths into the value, an object before its properties, in a stable order', () => {
  const issues = validator(schema)({ path: [{ name: 'ok' }, { size: 10, extra: 1 }], mode: 'delete', kind: 'dir', colour: 'red' });
  assert.deepEqual(
    issues.map((issue) => [issue.path, issue.keyword, issue.message]),
    [
      ['/colour', 'additionalProperties', 'is not an allowed property (allowed: either, kind, mode, path, target)'],
      ['/kind', 'const', 'must equal "file"'],
      ['/mode', 'enum', 'must be one of "read", "write"'],
      ['/path/1/name', 'required', 'is required'],
      ['/path/1/extra', 'additionalProperties', 'is not an allowed property (allowed: name, size)'],
      ['/path/1/size', 'maximum', 'must be <= 9'],
    ],
  );
});

test('types: integer is a number, not the reverse; null and arrays are distinct', () => {
  const numbers = validator({ type: 'object', properties: { n: { type: 'number' }, i: { type: 'integer' }, x: { type: ['null', 'array'] } } });
  assert.deepEqual(numbers({ n: 3, i: 3, x: null }), []);
  assert.deepEqual(numbers({ x: [] }), []);
  assert.deepEqual(numbers({ i: 1.5, n: 'one', x: {} }).map((issue) => [issue.path, issue.message]), [
    ['/i', 'expected integer, got number'],
    ['/n', 'expected number, got string'],
    ['/x', 'expected null or array, got object'],
  ]);
});

test('string length counts code points, so an astral character is one', () => {
  const one = property({ type: 'string', minLength: 1, maxLength: 1 });
  assert.deepEqual(one({ value: '😀' }), []);
  assert.equal(one({ value: '😀😀' })[0]?.keyword, 'maxLength');
});

test('limits say what was expected, in the unit of the keyword', () => {
  const check = validator({
    type: 'object',
    properties: { name: { minLength: 2 }, tags: { maxItems: 1, uniqueItems: true }, meta: { minProperties: 1 }, count: { exclusiveMinimum: 0 } },
  });
  assert.deepEqual(check({ name: 'a', tags: ['x', 'y', 'x'], meta: {}, count: 0 }).map((issue) => [issue.path, issue.message]), [
    ['/count', 'must be > 0'],
    ['/meta', 'must have at least 1 properties'],
    ['/name', 'must have at least 2 characters'],
    ['/tags', 'must have at most 1 items'],
    ['/tags/2', 'repeats an earlier item'],
  ]);
});

test('oneOf needs exactly one match; anyOf reports the closest branch only', () => {
  const oneOf = property({ oneOf: [{ type: 'number' }, { type: 'integer' }] });
  assert.deepEqual(oneOf({ value: 2 }).map((issue) => [issue.path, issue.keyword]), [['/value', 'oneOf']]);
  assert.deepEqual(oneOf({ value: 2.5 }), []);
  const anyOf = property({ anyOf: [{ type: 'string', minLength: 3 }, { type: 'boolean' }] });
  assert.deepEqual(anyOf({ value: 'ab' }).map((issue) => issue.keyword), ['anyOf', 'minLength']);
  assert.deepEqual(anyOf({ value: 7 }).map((issue) => [issue.keyword, issue.message]), [
    ['anyOf', 'does not match any of the 2 allowed schemas'],
    ['type', 'expected string, got integer'],
  ]);
});

test('local $ref, recursive schemas and the issue cap', () => {
  const tree = validator({
    type: 'object',
    $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } }, label: { type: 'string' } } } },
    $ref: '#/$defs/node',
  });
  assert.deepEqual(tree({ children: [{ children: [{ label: 'x' }] }] }), []);
  assert.deepEqual(tree({ children: [{ children: [{ label: 1 }] }] }).map((issue) => issue.path), ['/children/0/children/0/label']);
  const many = property({ type: 'array', items: { type: 'string' } });
  const fifty = { value: Array.from({ length: 50 }, () => 1) };
  assert.equal(many(fifty).length, 20);
  assert.deepEqual(many(fifty, { maxIssues: 3 }).map((issue) => issue.path), ['/value/0', '/value/1', '/value/2']);
});

// The keywords the hand-written validator silently ignored: a valid and an invalid argument each.

test('patternProperties', () => {
  const check = validator({ type: 'object', patternProperties: { '^x-': { type: 'integer' } }, additionalProperties: false });
  assert.deepEqual(check({ 'x-retries': 3 }), []);
  assert.deepEqual(check({ 'x-retries': 'three', other: 1 }).map((issue) => [issue.path, issue.keyword]), [
    ['/other', 'additionalProperties'],
    ['/x-retries', 'type'],
  ]);
});

test('prefixItems', () => {
  const pair = property({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false });
  assert.deepEqual(pair({ value: ['a', 1] }), []);
  assert.deepEqual(pair({ value: [1, 1] }).map((issue) => [issue.path, issue.keyword]), [['/value/0', 'type']]);
  assert.deepEqual(pair({ value: ['a', 1, 2] }).map((issue) => [issue.path, issue.keyword]), [['/value', 'items']]);
});

test('if / then / else', () => {
  const check = validator({
    type: 'object',
    properties: { kind: { enum: ['file', 'url'] } },
    if: { properties: { kind: { const: 'file' } }, required: ['kind'] },
    then: { required: ['path'] },
    else: { required: ['url'] },
  });
  assert.deepEqual(check({ kind: 'file', path: '/a' }), []);
  assert.deepEqual(check({ kind: 'url', url: 'https://a' }), []);
  assert.deepEqual(check({ kind: 'file', url: 'https://a' }).map((issue) => [issue.path, issue.keyword]), [
    ['', 'if'],
    ['/path', 'required'],
  ]);
  assert.deepEqual(check({ kind: 'url' }).map((issue) => [issue.path, issue.keyword]), [
    ['', 'if'],
    ['/url', 'required'],
  ]);
});

test('format (ajv-formats)', () => {
  const check = validator({ type: 'object', properties: { email: { type: 'string', format: 'email' }, day: { type: 'string', format: 'date' } } });
  assert.deepEqual(check({ email: 'a@example.com', day: '2026-11-30' }), []);
  assert.deepEqual(check({ email: 'not an address', day: '2026-13-45' }).map((issue) => [issue.path, issue.keyword, issue.message]), [
    ['/day', 'format', 'must match format "date"'],
    ['/email', 'format', 'must match format "email"'],
  ]);
  // An unknown format is an annotation, as JSON Schema allows: ignored, not fatal.
  assert.deepEqual(property({ type: 'integer', format: 'int32' })({ value: 1 }), []);
});

test('dependentRequired', () => {
  const check = validator({ type: 'object', dependentRequired: { start: ['end'] } });
  assert.deepEqual(check({ start: 1, end: 2 }), []);
  assert.deepEqual(check({ end: 2 }), []);
  assert.deepEqual(check({ start: 1 }).map((issue) => [issue.path, issue.keyword, issue.message]), [['/end', 'dependentRequired', 'is required when "start" is present']]);
});

test('the dialect follows $schema: draft 2020-12 by default, draft-07 when declared', () => {
  const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false };
  // draft-07: an array of `items` is a tuple.
  const draft07 = validator({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { value: tuple } });
  assert.deepEqual(draft07({ value: ['a', 1] }), []);
  assert.deepEqual(draft07({ value: ['a', 'b', 3] }).map((issue) => [issue.path, issue.keyword]), [
    ['/value', 'additionalItems'],
    ['/value/1', 'type'],
  ]);
  // draft 2020-12 (the default, and when declared): `items` must be one schema; tuples are `prefixItems`.
  for (const dialect of [{}, { $schema: 'https://json-schema.org/draft/2020-12/schema' }]) {
    assert.equal(problem({ ...dialect, type: 'object', properties: { value: tuple } }).path, '/properties/value/items');
  }
  // A 2020-12 keyword means nothing to draft-07.
  assert.deepEqual(validator({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependentRequired: { a: ['b'] } })({ a: 1 }), []);
  assert.match(problem({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }).message, /unsupported "\$schema".*2020-12.*draft-07/);
});

test('names the JSON Pointer of the first malformed keyword, including what ajv refuses to compile', () => {
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
    const found = problem(schema);
    assert.equal(found.path, path, JSON.stringify(schema));
    assert.ok(found.message.length > 0);
  }
  assert.match(problem({ type: 'object', properties: { r: { $ref: '#/$defs/missing' } } }).message, /"#\/\$defs\/missing" does not resolve/);
});

test('a schema object is compiled once and its validator reused', () => {
  const shared = { type: 'object', properties: { n: { type: 'integer' } } };
  const first = compileParameterSchema(shared);
  assert.equal(compileParameterSchema(shared), first);
  assert.notEqual(compileParameterSchema({ ...shared }), first);
});

test('two schemas may share an $id', () => {
  const integer = validator({ $id: 'https://example.test/args', type: 'object', properties: { n: { type: 'integer' } } });
  const text = validator({ $id: 'https://example.test/args', type: 'object', properties: { n: { type: 'string' } } });
  assert.deepEqual(integer({ n: 1 }), []);
  assert.deepEqual(text({ n: 'one' }), []);
  assert.equal(text({ n: 1 })[0]?.keyword, 'type');
});
