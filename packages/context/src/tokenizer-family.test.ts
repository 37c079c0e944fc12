import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConservativeTokenEstimator, ESTIMATOR_PROFILES } from './conservative-token-estimator.js';
import { ExactTokenEstimator, exactTokenEstimatorFor, hasBuiltInExactTokenizer } from './exact-token-estimator.js';
import { TOKENIZER_FAMILIES, type TokenizerFamily } from './token-estimator.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';
import * as context from './index.js';

/** Model names as users write them and as servers report them, and the family each one's tokenizer belongs to. */
const NAMES: ReadonlyArray<readonly [string, TokenizerFamily]> = [
  // OpenAI names and encodings, with and without a provider prefix.
  ['gpt-4o', 'o200k'],
  ['gpt-4o-mini-2024-07-18', 'o200k'],
  ['gpt-4.1', 'o200k'],
  ['openai:gpt-5', 'o200k'],
  ['azure:gpt-4o', 'o200k'],
  ['openai/gpt-4.1-mini', 'o200k'],
  ['o3-mini', 'o200k'],
  ['o200k_base', 'o200k'],
  ['gpt-4', 'cl100k'],
  ['gpt-4-turbo', 'cl100k'],
  ['gpt-3.5-turbo', 'cl100k'],
  ['text-embedding-3-small', 'cl100k'],
  ['cl100k_base', 'cl100k'],
  ['gpt-oss:20b', 'o200k_harmony'],
  ['openai/gpt-oss-120b', 'o200k_harmony'],
  ['openai.gpt-oss-120b-1:0', 'o200k_harmony'],
  ['o200k_harmony', 'o200k_harmony'],
  // Qwen: Ollama tags, Hugging Face ids, OpenRouter, LM Studio, Bedrock.
  ['qwen3:30b', 'qwen'],
  ['qwen3:30b-a3b-instruct-2507-q4_K_M', 'qwen'],
  ['qwen2.5:7b', 'qwen'],
  ['qwen2.5-coder:32b', 'qwen'],
  ['Qwen/Qwen3-32B', 'qwen'],
  ['Qwen/Qwen2.5-72B-Instruct', 'qwen'],
  ['Qwen/QwQ-32B', 'qwen'],
  ['qwen/qwen3-235b-a22b', 'qwen'],
  ['lmstudio-community/Qwen3-30B-A3B-GGUF', 'qwen'],
  ['Qwen3-30B-A3B-Q4_K_M.gguf', 'qwen'],
  ['qwen.qwen3-32b-v1:0', 'qwen'],
  ['deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 'qwen'],
  ['deepseek/deepseek-r1-distill-qwen-14b', 'qwen'],
  // DeepSeek's own tokenizer (V3, R1, the API's names).
  ['deepseek-ai/DeepSeek-V3', 'deepseek'],
  ['deepseek-ai/DeepSeek-R1', 'deepseek'],
  ['deepseek-ai/DeepSeek-V3.1', 'deepseek'],
  ['deepseek/deepseek-chat', 'deepseek'],
  ['deepseek/deepseek-r1', 'deepseek'],
  ['deepseek-chat', 'deepseek'],
  ['deepseek-reasoner', 'deepseek'],
  ['deepseek-r1:671b', 'deepseek'],
  ['deepseek-v3:671b', 'deepseek'],
  ['deepseek.r1-v1:0', 'deepseek'],
  ['us.deepseek.r1-v1:0', 'deepseek'],
  // Ollama's deepseek-r1 tags below 671b are distilled Qwen or Llama models; DeepSeek's older models have other vocabularies.
  ['deepseek-r1:8b', 'unknown'],
  ['deepseek-r1:14b', 'unknown'],
  ['deepseek-r1', 'unknown'],
  ['deepseek-coder:6.7b', 'unknown'],
  ['deepseek-coder-v2:16b', 'unknown'],
  ['deepseek-ai/DeepSeek-R1-Distill-Llama-70B', 'llama3'],
  // Llama 3.x, 2, and Llama 4's new tokenizer.
  ['llama3.1:8b', 'llama3'],
  ['llama3.2', 'llama3'],
  ['llama3.3:70b', 'llama3'],
  ['llama3:8b-instruct-q8_0', 'llama3'],
  ['meta-llama/Llama-3.1-8B-Instruct', 'llama3'],
  ['meta-llama/Meta-Llama-3-8B-Instruct', 'llama3'],
  ['meta-llama/llama-3.3-70b-instruct', 'llama3'],
  ['meta-llama-3.1-8b-instruct', 'llama3'],
  ['meta.llama3-1-70b-instruct-v1:0', 'llama3'],
  ['us.meta.llama3-2-11b-instruct-v1:0', 'llama3'],
  ['llama2:7b', 'llama2'],
  ['llama2:13b-chat', 'llama2'],
  ['meta-llama/Llama-2-7b-chat-hf', 'llama2'],
  ['meta.llama2-13b-chat-v1', 'llama2'],
  ['codellama:7b', 'llama2'],
  ['llama4:scout', 'unknown'],
  ['meta-llama/Llama-4-Scout-17B-16E-Instruct', 'unknown'],
  // Mistral's SentencePiece models; its later ones use Tekken.
  ['mistral:7b', 'llama2'],
  ['mistral', 'llama2'],
  ['mistralai/Mistral-7B-Instruct-v0.3', 'llama2'],
  ['mistralai/mistral-7b-instruct', 'llama2'],
  ['mixtral:8x7b', 'llama2'],
  ['mistralai/Mixtral-8x22B-Instruct-v0.1', 'llama2'],
  ['mistral.mistral-7b-instruct-v0:2', 'llama2'],
  ['mistral.mixtral-8x7b-instruct-v0:1', 'llama2'],
  ['mistral-nemo:12b', 'unknown'],
  ['mistral-small3.1', 'unknown'],
  ['mistralai/Mistral-Large-Instruct-2411', 'unknown'],
  ['codestral:22b', 'unknown'],
  // Gemma, and Gemini (Gemma 3 has Gemini 2.0's tokenizer).
  ['gemma3:27b', 'gemma'],
  ['gemma2:9b', 'gemma'],
  ['gemma3n:e4b', 'gemma'],
  ['google/gemma-3-27b-it', 'gemma'],
  ['google/gemma-3-12b', 'gemma'],
  ['gemini-2.5-pro', 'gemma'],
  ['gemini-2.0-flash', 'gemma'],
  ['google/gemini-2.5-flash', 'gemma'],
  ['models/gemini-1.5-pro', 'gemma'],
  // Claude, as Anthropic, OpenRouter, Bedrock and Vertex spell it.
  ['claude-sonnet-4-5', 'claude'],
  ['claude-3-5-haiku-20241022', 'claude'],
  ['claude-opus-4-1-20250805', 'claude'],
  ['anthropic:claude-sonnet-4-5', 'claude'],
  ['anthropic/claude-sonnet-4.5', 'claude'],
  ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude'],
  ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude'],
  ['global.anthropic.claude-sonnet-4-20250514-v1:0', 'claude'],
  ['claude-3-5-sonnet@20240620', 'claude'],
  // Models whose tokenizer is none of the families: the bound of all of them.
  ['glm-4.6', 'unknown'],
  ['glm4:9b', 'unknown'],
  ['zai-org/GLM-4.5', 'unknown'],
  ['z-ai/glm-4.6', 'unknown'],
  ['kimi-k2', 'unknown'],
  ['kimi-k2-0905-preview', 'unknown'],
  ['moonshotai/Kimi-K2-Instruct', 'unknown'],
  ['phi4:14b', 'unknown'],
  ['command-r', 'unknown'],
  ['', 'unknown'],
  ['   ', 'unknown'],
  // A whole model specifier: the model follows '#'.
  ['openai-compatible:http://127.0.0.1:11434/v1#llama3.1', 'llama3'],
  ['openai-compatible:http://127.0.0.1:8000/v1#Qwen/Qwen3-32B', 'qwen'],
];

test('tokenizerFamilyOf knows the model names users write and servers report', () => {
  const wrong = NAMES.filter(([name, family]) => tokenizerFamilyOf(name) !== family).map(([name, family]) => `${name}: ${tokenizerFamilyOf(name)}, expected ${family}`);
  assert.deepEqual(wrong, []);
});

test('tokenizerFamilyOf takes any value: what is not a name is unknown', () => {
  for (const value of [undefined, null, 42, {}, ['gpt-4o']]) assert.equal(tokenizerFamilyOf(value as never), 'unknown');
});

test('every family has a profile and a conservative estimator; only OpenAI encodings count exactly without outside help', () => {
  assert.deepEqual(Object.keys(ESTIMATOR_PROFILES).sort(), [...TOKENIZER_FAMILIES].sort());
  for (const family of TOKENIZER_FAMILIES) {
    assert.equal(new ConservativeTokenEstimator({ family }).family, family);
    assert.equal(hasBuiltInExactTokenizer(family), family === 'o200k' || family === 'o200k_harmony' || family === 'cl100k');
  }
  assert.equal(exactTokenEstimatorFor('gpt-oss:20b').family, 'o200k_harmony');
  assert.throws(() => exactTokenEstimatorFor('qwen3:30b'), (error: unknown) => context.ConfigurationError.isInstance(error) && error.setting === 'tokenizer' && /qwen/.test(error.message));
  assert.throws(() => new ExactTokenEstimator({ family: 'qwen' as never }), (error: unknown) => context.ConfigurationError.isInstance(error) && error.setting === 'family');
});
