import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CredentialStreamRedactor, CredentialVault, describeRedactions, redactCredentials, redactCredentialsDeep } from './redact-credentials.js';

// Fake credentials of the right shapes, assembled so no scanner mistakes this file for a leak.
const openaiKey = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2'].join('-');
const anthropicKey = ['sk', 'ant', 'api03', 'Zz9Yy8Xx7Ww6Vv5Uu4'].join('-');
const awsAccessKey = 'AKIA' + 'IOSFODNN7EXAMPLE';
const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY';
const githubToken = 'ghp_' + 'a'.repeat(36);
const gitlabToken = 'glpat-' + 'Xy12'.repeat(5);
const slackToken = ['xoxb', '123456789012', 'abcdefABCDEF'].join('-');
const googleKey = 'AIza' + 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
const stripeKey = ['sk', 'live', '51HqLyjWDarjtT1zdp7dc'].join('_');
const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.');
const azureKey = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu' + 'FQ2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const pem = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7', 'abc+/=', '-----END RSA PRIVATE KEY-----'].join('\n');

test('each kind of credential is replaced by its marker, keeping the text around it', () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    [`auth failed: Bearer ${openaiKey}`, 'auth failed: Bearer [REDACTED:bearer-token]', 'bearer-token'],
    ['Authorization: bearer 0a1b2c3d4e5f6a7b8c9d', 'Authorization: bearer [REDACTED:bearer-token]', 'bearer-token'],
    ['Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b', 'Authorization: Token [REDACTED:authorization-header]', 'authorization-header'],
    ['curl -H "authorization: Basic dXNlcjpwYXNz" x', 'curl -H "authorization: Basic [REDACTED:authorization-header]" x', 'authorization-header'],
    [`key ${openaiKey} rejected`, 'key [REDACTED:openai-key] rejected', 'openai-key'],
    [`key ${anthropicKey} rejected`, 'key [REDACTED:anthropic-key] rejected', 'anthropic-key'],
    [`charge with ${stripeKey}.`, 'charge with [REDACTED:stripe-key].', 'stripe-key'],
    [`id ${awsAccessKey}.`, 'id [REDACTED:aws-access-key].', 'aws-access-key'],
    [`AWS_SECRET_ACCESS_KEY=${awsSecret}\n`, 'AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]\n', 'aws-secret-key'],
    [`{"aws_secret_access_key": "${awsSecret}"}`, '{"aws_secret_access_key": "[REDACTED:aws-secret-key]"}', 'aws-secret-key'],
    [`AccountName=acct;AccountKey=${azureKey};EndpointSuffix=core.windows.net`, 'AccountName=acct;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net', 'azure-key'],
    [`token ${githubToken}`, 'token [REDACTED:github-token]', 'github-token'],
    [`gitlab ${gitlabToken}`, 'gitlab [REDACTED:gitlab-token]', 'gitlab-token'],
    [`slack ${slackToken}`, 'slack [REDACTED:slack-token]', 'slack-token'],
    [`google ${googleKey}`, 'google [REDACTED:google-key]', 'google-key'],
    [`session ${jwt} expired`, 'session [REDACTED:jwt] expired', 'jwt'],
    [`key:\n${pem}\nafter`, 'key:\n[REDACTED:private-key]\nafter', 'private-key'],
    ['connect postgres://strata:hunter22@db:5432/x failed', 'connect postgres://strata:[REDACTED:url-password]@db:5432/x failed', 'url-password'],
    ['x-api-key: 3f9a7c2e1b8d4f6a', 'x-api-key: [REDACTED:secret-assignment]', 'secret-assignment'],
    ['{"user": "ada", "password": "correct horse battery"}', '{"user": "ada", "password": "[REDACTED:secret-assignment]"}', 'secret-assignment'],
    ['{\\"password\\": \\"hunter22\\"}', '{\\"password\\": \\"[REDACTED:secret-assignment]\\"}', 'secret-assignment'],
    ['PGPASSWORD=s3cr3t psql -h db', 'PGPASSWORD=[REDACTED:secret-assignment] psql -h db', 'secret-assignment'],
    ["client_secret='abc def'", "client_secret='[REDACTED:secret-assignment]'", 'secret-assignment'],
  ];
  for (const [input, expected, kind] of cases) {
    const result = redactCredentials(input);
    assert.equal(result.text, expected, input);
    assert.deepEqual(result.redactions, [{ kind, count: 1 }], input);
  }
});

test('an unterminated private key block is redacted to the end of the text', () => {
  const cut = pem.slice(0, 50);
  assert.equal(redactCredentials(`error: ${cut}`).text, 'error: [REDACTED:private-key]');
});

test('several credentials are counted per kind; a clean text comes back unchanged', () => {
  const result = redactCredentials(`Bearer ${openaiKey} then ${anthropicKey} and ${anthropicKey}`);
  assert.equal(result.text, 'Bearer [REDACTED:bearer-token] then [REDACTED:anthropic-key] and [REDACTED:anthropic-key]');
  assert.deepEqual(result.redactions, [{ kind: 'bearer-token', count: 1 }, { kind: 'anthropic-key', count: 2 }]);
  assert.equal(describeRedactions(result.redactions), 'bearer-token (1), anthropic-key (2)');
  const clean = [
    'tool "measure" failed: sample sk-1 not found at https://example.org/a:b (task-ask AKIA)',
    'the bearer of this letter; bearer tokens expire',
    '{"max_tokens": 1000, "input_tokens": 5, "password": null, "token_type": "bearer"}',
    'see https://user@example.org/path and mailto:a@b.c',
  ];
  for (const text of clean) assert.deepEqual(redactCredentials(text), { text, redactions: [] }, text);
});

test('a vault numbers each value once and restores it; stores keep the marker', () => {
  const vault = new CredentialVault();
  const first = redactCredentials(`use ${openaiKey} or ${openaiKey}, not ${anthropicKey}`, { vault });
  assert.equal(first.text, 'use [REDACTED:openai-key#2] or [REDACTED:openai-key#2], not [REDACTED:anthropic-key#1]');
  assert.equal(vault.restore(first.text), `use ${openaiKey} or ${openaiKey}, not ${anthropicKey}`);
  assert.equal(vault.restore('[REDACTED:openai-key#9] [REDACTED:jwt]'), '[REDACTED:openai-key#9] [REDACTED:jwt]');
  assert.deepEqual(vault.restoreDeep({ a: ['[REDACTED:openai-key#2]'], b: 1 }), { a: [openaiKey], b: 1 });
  // Idempotent with the vault too: a numbered marker is never redacted again.
  assert.equal(redactCredentials(first.text, { vault }).text, first.text);
});

test('deep redaction maps every string of a value and keeps an unchanged value by reference', () => {
  const value = { headers: { Authorization: `Bearer ${openaiKey}` }, list: [1, 'ok', `key ${githubToken}`], flag: true };
  const { value: redacted, redactions } = redactCredentialsDeep(value);
  assert.deepEqual(redacted, { headers: { Authorization: 'Bearer [REDACTED:bearer-token]' }, list: [1, 'ok', 'key [REDACTED:github-token]'], flag: true });
  assert.deepEqual(redactions, [{ kind: 'bearer-token', count: 1 }, { kind: 'github-token', count: 1 }]);
  const clean = { a: ['x', { b: 'y' }] };
  assert.equal(redactCredentialsDeep(clean).value, clean);
});

/** Pieces credentials, their contexts and our markers are made of: what the fuzzer stitches together. */
const FRAGMENTS = [
  openaiKey, anthropicKey, awsAccessKey, awsSecret, githubToken, gitlabToken, slackToken, googleKey, stripeKey, jwt, azureKey, pem,
  'Bearer ', 'bearer ', 'Basic ', 'Authorization: ', 'authorization=', 'Token ', 'x-api-key: ', '"password": "', '\\"password\\": \\"', 'PGPASSWORD=', 'secret=', "'",
  'postgres://', 'u:', 'p@', '@', ':', '/', '//', '"', '\\', ' ', '\n', '\t', '=', ',', ';', '&', '[', ']', 'eyJ', '.', '-', '_', 'sk-', 'sk_live_', 'AKIA', 'AccountKey=',
  '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', '[REDACTED:jwt]', '[REDACTED:url-password]', '[REDACTED:openai-key#1]', 'abc123', 'null', '0123456789',
];
const stitched = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 30 }).map((parts) => parts.join(''));

test('fuzz: total over any string, and idempotent (a redacted text is redacted to itself)', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), stitched), (text) => {
      const once = redactCredentials(text);
      assert.equal(typeof once.text, 'string');
      const twice = redactCredentials(once.text);
      assert.equal(twice.text, once.text);
      assert.deepEqual(twice.redactions, []);
      const vault = new CredentialVault();
      const numbered = redactCredentials(text, { vault });
      assert.equal(redactCredentials(numbered.text, { vault }).text, numbered.text);
    }),
    { numRuns: 3_000 },
  );
});

test('fuzz: a credential between separators never survives, whatever surrounds it', () => {
  const secrets = [openaiKey, anthropicKey, awsAccessKey, githubToken, gitlabToken, slackToken, googleKey, stripeKey, jwt];
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom(...secrets), fc.constantFrom(' ', '\n', ', ', '"', "'", '(', ') ', '=', ': ', ' Bearer ', '\t')), { minLength: 1, maxLength: 8 }), (parts) => {
      const text = parts.map(([secret, separator]) => `${separator}${secret}`).join('');
      const redacted = redactCredentials(text).text;
      for (const [secret] of parts) assert.ok(!redacted.includes(secret), `${secret} survived in ${redacted}`);
    }),
    { numRuns: 1_000 },
  );
});

test('fuzz: a text redacted as a stream in any pieces, released by line or by word, is the text redacted whole', () => {
  const lines = fc.array(fc.oneof(stitched, fc.constantFrom(pem), fc.constantFrom('some plain words here', 'a b c ')), { maxLength: 6 }).map((parts) => parts.join('\n'));
  fc.assert(
    fc.property(lines, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }), fc.constantFrom('line' as const, 'word' as const), (text, sizes, release) => {
      const stream = new CredentialStreamRedactor({ release });
      let out = '';
      let at = 0;
      for (let index = 0; at < text.length; index += 1) {
        const size = sizes[index % sizes.length]!;
        out += stream.push(text.slice(at, at + size));
        at += size;
      }
      out += stream.end();
      const whole = redactCredentials(text);
      assert.equal(out, whole.text);
      assert.deepEqual(stream.redactions, whole.redactions);
    }),
    { numRuns: 1_000 },
  );
});

test('released by word, plain text goes out as it comes; a line with a credential context waits for its end', () => {
  const stream = new CredentialStreamRedactor({ release: 'word' });
  assert.equal(stream.push('The answer is '), 'The answer is ');
  assert.equal(stream.push('forty two'), 'forty ');
  assert.equal(stream.push(` and then Bearer ${openaiKey.slice(0, 6)}`), '');
  assert.equal(stream.push(`${openaiKey.slice(6)} done.\nNext`), 'two and then Bearer [REDACTED:bearer-token] done.\n');
  assert.equal(stream.end(), 'Next');
});

test('a stream cuts a long line without splitting a credential, and holds an open private key until its end', () => {
  const stream = new CredentialStreamRedactor();
  const filler = 'x '.repeat(10_000);
  let out = stream.push(`${filler}Bearer ${openaiKey.slice(0, 10)}`);
  out += stream.push(`${openaiKey.slice(10)} and more\n-----BEGIN PRIVATE KEY-----\nAAAA\n`);
  assert.ok(!out.includes('BEGIN'), 'nothing of an open key block is released');
  out += stream.push('BBBB\n-----END PRIVATE KEY-----\nafter\n');
  out += stream.end();
  assert.equal(out, `${filler}Bearer [REDACTED:bearer-token] and more\n[REDACTED:private-key]\nafter\n`);
});

test('linear time: adversarial inputs of 400,000 characters are redacted in well under a second each', () => {
  const size = 400_000;
  const inputs = [
    'eyJ-'.repeat(size / 4),
    'eyJa.eyJb.'.repeat(size / 10),
    'a.'.repeat(size / 2),
    'a://'.repeat(size / 4),
    'x://u:'.repeat(size / 6),
    'x://u:p'.repeat(size / 7),
    'Bearer '.repeat(size / 7),
    'password'.repeat(size / 8),
    'password '.repeat(size / 9),
    'a-password: '.repeat(size / 12),
    '"password": "'.repeat(size / 13),
    'authorization: '.repeat(size / 15),
    '-----BEGIN PRIVATE KEY-----'.repeat(size / 27),
    '-----END '.repeat(size / 9),
    'sk-'.repeat(size / 3),
    'AccountKey='.repeat(size / 11),
    ' '.repeat(size),
    'a'.repeat(size),
  ];
  for (const input of inputs) {
    const started = performance.now();
    redactCredentials(input);
    const elapsed = performance.now() - started;
    // A quadratic pattern takes minutes here; linear ones take milliseconds.
    assert.ok(elapsed < 2_000, `${JSON.stringify(input.slice(0, 20))}… took ${Math.round(elapsed)} ms`);
  }
});
