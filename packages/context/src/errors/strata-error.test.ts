import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StrataError } from './strata-error.js';
import { ConfigurationError } from './configuration-error.js';
import { ContextInputError } from './context-input-error.js';

test('isInstance recognises errors by marker, not by prototype', () => {
  const error = new ConfigurationError({ setting: 'MODEL_MAX_TOKENS', message: 'MODEL_MAX_TOKENS must be a positive integer' });
  assert.equal(StrataError.isInstance(error), true);
  assert.equal(ConfigurationError.isInstance(error), true);
  assert.equal(ContextInputError.isInstance(error), false);
  // A copy from another install carries the same global symbol.
  const foreign = Object.assign(new Error('x'), { [Symbol.for('strata.error.ConfigurationError')]: true, [Symbol.for('strata.error')]: true });
  assert.equal(ConfigurationError.isInstance(foreign), true);
  assert.equal(StrataError.isInstance(new Error('plain')), false);
  assert.equal(error.kind, 'configuration');
  assert.equal(error.setting, 'MODEL_MAX_TOKENS');
});
