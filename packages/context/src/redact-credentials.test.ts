import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactCredentials } from './redact-credentials.js';

// Fake credentials of the right shapes, assembled so no scanner mistakes this file for a leak.
const openaiKey = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2'].join('-');
const anthropicKey = ['sk', 'ant', 'api03', 'Zz9Yy8Xx7Ww6Vv5Uu4'].join('-');
const awsAccessKey = 'AKIA' + 'IOSFODNN7EXAMPLE';
const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY';
const githubToken = 'ghp_' + 'a'.repeat(36);
const slackToken = ['xoxb', '123456789012', 'abcdefABCDEF'].join('-');
const googleKey = 'AIza' + 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
const pem = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7', 'abc+/=', '-----END RSA PRIVATE KEY-----'].join('\n');

test('each kind of credential is replaced by its marker, keeping the text around it', () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    [`auth failed: Bearer ${openaiKey}`, 'auth failed: Bearer [REDACTED:bearer-token]', 'bearer-token'],
    [`key ${openaiKey} rejected`, 'key [REDACTED:openai-key] rejected', 'openai-key'],
    [`key ${anthropicKey} rejected`, 'key [REDACTED:anthropic-key] rejected', 'anthropic-key'],
    [`id ${awsAccessKey}.`, 'id [REDACTED:aws-access-key].', 'aws-access-key'],
    [`AWS_SECRET_ACCESS_KEY=${awsSecret}\n`, 'AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]\n', 'aws-secret-key'],
    [`{"aws_secret_access_key": "${awsSecret}"}`, '{"aws_secret_access_key": "[REDACTED:aws-secret-key]"}', 'aws-secret-key'],
    [`token ${githubToken}`, 'token [REDACTED:github-token]', 'github-token'],
    [`slack ${slackToken}`, 'slack [REDACTED:slack-token]', 'slack-token'],
    [`google ${googleKey}`, 'google [REDACTED:google-key]', 'google-key'],
    [`key:\n${pem}\nafter`, 'key:\n[REDACTED:private-key]\nafter', 'private-key'],
    ['connect postgres://strata:hunter22@db:5432/x failed', 'connect postgres://strata:[REDACTED:url-password]@db:5432/x failed', 'url-password'],
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
  const clean = 'tool "measure" failed: sample sk-1 not found at https://example.org/a:b (task-ask AKIA)';
  assert.deepEqual(redactCredentials(clean), { text: clean, redactions: [] });
});
