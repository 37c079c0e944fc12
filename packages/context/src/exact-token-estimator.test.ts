import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError } from './errors/configuration-error.js';
import { ExactTokenEstimator, exactTokenizerInstalled, hasBuiltInExactTokenizer, loadExactEncoder } from './exact-token-estimator.js';

const missing = (specifier: string): never => {
  throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'MODULE_NOT_FOUND' });
};

test('without gpt-tokenizer installed, an exact counter is a ConfigurationError naming the package to install', () => {
  assert.throws(
    () => loadExactEncoder('o200k', missing),
    (error: unknown) => ConfigurationError.isInstance(error) && /"gpt-tokenizer"/.test(error.message) && /npm install gpt-tokenizer/.test(error.message),
  );
  assert.equal(exactTokenizerInstalled(missing), false);
});

test('any other failure while loading gpt-tokenizer is passed on as it is', () => {
  const broken = new TypeError('gpt-tokenizer failed to initialise');
  assert.throws(() => loadExactEncoder('cl100k', () => { throw broken; }), (error: unknown) => error === broken);
});

test('the installed gpt-tokenizer is found, loaded once per family, and counts exactly', () => {
  assert.equal(exactTokenizerInstalled(), true);
  assert.equal(hasBuiltInExactTokenizer('o200k'), true);
  assert.equal(hasBuiltInExactTokenizer('llama3'), false);
  assert.equal(loadExactEncoder('o200k'), loadExactEncoder('o200k'));
  // "hello world" is two tokens in o200k_base and cl100k_base.
  assert.equal(new ExactTokenEstimator({ family: 'o200k' }).countText('hello world'), 2);
  assert.equal(new ExactTokenEstimator({ family: 'cl100k' }).countText('hello world'), 2);
});

test('ExactTokenEstimator takes any value: a family it does not count is a ConfigurationError naming the setting', () => {
  for (const options of [undefined, null, {}, { family: 'llama3' }, { family: 7 }, { family: 'hasOwnProperty' }]) {
    assert.throws(
      () => new ExactTokenEstimator(options as never),
      (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'family',
      JSON.stringify(options),
    );
  }
});
