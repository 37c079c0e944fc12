import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigurationError, StrataError } from '@strata/context';
import { createLanguageModel, createModelClientFromSpecifier } from './create-language-model.js';
import { ModelConfigurationError } from './errors/model-configuration-error.js';
import { parseModelSpecifier } from './model-specifier.js';

function configurationError(run: () => unknown): ModelConfigurationError {
  try {
    run();
  } catch (error) {
    assert.ok(ModelConfigurationError.isInstance(error), `expected a ModelConfigurationError, got ${String(error)}`);
    assert.ok(ConfigurationError.isInstance(error), 'it is a ConfigurationError too');
    assert.ok(StrataError.isInstance(error));
    assert.equal(error.kind, 'configuration');
    return error;
  }
  assert.fail('expected a ModelConfigurationError');
}

test('model strings parse into provider, model and base URL', () => {
  assert.deepEqual(parseModelSpecifier('openai:gpt-4.1'), { provider: 'openai', modelId: 'gpt-4.1' });
  assert.deepEqual(parseModelSpecifier(' anthropic:claude-sonnet-4-5 '), { provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
  assert.deepEqual(parseModelSpecifier('openai-compatible:http://localhost:11434/v1/#llama3.1:8b'), {
    provider: 'openai-compatible',
    modelId: 'llama3.1:8b',
    baseURL: 'http://localhost:11434/v1',
  });
  assert.deepEqual(parseModelSpecifier('openai-compatible:https://host.example/v1#org/model#2'), {
    provider: 'openai-compatible',
    modelId: '2',
    baseURL: 'https://host.example/v1#org/model',
  });
});

test('an unknown provider is a clear error naming it, before any request', () => {
  const error = configurationError(() => createLanguageModel({ model: 'gemini:gemini-2.5-pro', env: {} }));
  assert.equal(error.code, 'MODEL_PROVIDER_UNKNOWN');
  assert.equal(error.setting, 'model');
  assert.match(error.message, /unknown provider 'gemini'/);
  assert.match(error.message, /anthropic, openai, openai-compatible/);
});

test('malformed model strings name what is missing', () => {
  for (const text of ['gpt-4.1', 'openai:', ':gpt-4.1', '']) {
    assert.equal(configurationError(() => parseModelSpecifier(text)).code, 'MODEL_SPECIFIER_MALFORMED', text);
  }
  const noModel = configurationError(() => parseModelSpecifier('openai-compatible:http://localhost:1234/v1'));
  assert.equal(noModel.code, 'MODEL_SPECIFIER_MALFORMED');
  assert.match(noModel.message, /<base-url>#<model>/);
  const badURL = configurationError(() => parseModelSpecifier('openai-compatible:localhost:1234#m'));
  assert.equal(badURL.code, 'MODEL_BASE_URL_INVALID');
  assert.equal(configurationError(() => parseModelSpecifier('openai-compatible:ftp://host/v1#m')).code, 'MODEL_BASE_URL_INVALID');
  assert.equal(configurationError(() => parseModelSpecifier('x:y', 'STRATA_MODEL')).setting, 'STRATA_MODEL');
});

test('a missing key names the variable, for each provider that needs one', () => {
  const openai = configurationError(() => createLanguageModel({ model: 'openai:gpt-4.1', env: {} }));
  assert.equal(openai.code, 'MODEL_API_KEY_MISSING');
  assert.equal(openai.setting, 'OPENAI_API_KEY');
  assert.match(openai.message, /OPENAI_API_KEY is not set/);
  const anthropic = configurationError(() => createLanguageModel({ model: 'anthropic:claude-sonnet-4-5', env: { OPENAI_API_KEY: 'sk-other', ANTHROPIC_API_KEY: '  ' } }));
  assert.equal(anthropic.setting, 'ANTHROPIC_API_KEY');
  assert.equal(configurationError(() => createModelClientFromSpecifier({ model: 'openai:gpt-4.1', env: {} })).setting, 'OPENAI_API_KEY');
});

test('keys come from explicit options first, then the env record; local servers need none', () => {
  assert.equal(createLanguageModel({ model: 'openai:gpt-4.1', apiKey: 'sk-explicit', env: {} }).provider, 'openai.chat');
  assert.equal(createLanguageModel({ model: 'openai:gpt-5', openaiApi: 'responses', env: { OPENAI_API_KEY: 'sk-env' } }).provider, 'openai.responses');
  const anthropic = createLanguageModel({ model: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'sk-ant' } });
  assert.equal(anthropic.provider, 'anthropic.messages');
  assert.equal(anthropic.modelId, 'claude-sonnet-4-5');
  const local = createLanguageModel({ model: 'openai-compatible:http://127.0.0.1:11434/v1#llama3.1', env: {} });
  assert.equal(local.provider, 'openai-compatible.chat');
  assert.equal(local.modelId, 'llama3.1');
  const client = createModelClientFromSpecifier({ model: 'openai:gpt-4.1', env: { OPENAI_API_KEY: 'sk-env' }, timeoutMs: 1000 });
  assert.equal(client.modelId, 'gpt-4.1');
});

test('an invalid base URL or proxy names its variable', () => {
  const baseURL = configurationError(() => createLanguageModel({ model: 'openai:gpt-4.1', env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'not a url' } }));
  assert.equal(baseURL.code, 'MODEL_BASE_URL_INVALID');
  assert.equal(baseURL.setting, 'OPENAI_BASE_URL');
  const proxy = configurationError(() => createLanguageModel({ model: 'openai:gpt-4.1', env: { OPENAI_API_KEY: 'k', HTTPS_PROXY: 'socks5://127.0.0.1:1080' } }));
  assert.equal(proxy.code, 'MODEL_PROXY_INVALID');
  assert.equal(proxy.setting, 'HTTPS_PROXY');
  // The proxy agent decides per request whether NO_PROXY applies, so a malformed proxy is reported even where NO_PROXY covers the target.
  const covered = configurationError(() => createLanguageModel({ model: 'openai:gpt-4.1', env: { OPENAI_API_KEY: 'k', HTTPS_PROXY: 'socks5://127.0.0.1:1080', NO_PROXY: '.openai.com' } }));
  assert.equal(covered.setting, 'HTTPS_PROXY');
  // proxy: false means no proxy at all: the variables are not read.
  createLanguageModel({ model: 'openai:gpt-4.1', proxy: false, env: { OPENAI_API_KEY: 'k', HTTPS_PROXY: 'socks5://127.0.0.1:1080' } });
});
