import { BoundedCache } from './bounded-cache.js';
import type { TokenizerFamily } from './token-estimator.js';

/** Encoding names, as gpt-tokenizer and tiktoken spell them. */
const ENCODING_FAMILIES: Readonly<Record<string, TokenizerFamily>> = Object.freeze({
  o200k_base: 'o200k',
  o200k: 'o200k',
  o200k_harmony: 'o200k_harmony',
  cl100k_base: 'cl100k',
  cl100k: 'cl100k',
});

/** Prefixes that name a provider or client, not the model (`openai:gpt-4.1`, `ollama:qwen3:30b`). */
const PROVIDER_PREFIX = /^(?:openai|azure|anthropic|google|vertex|bedrock|openrouter|ollama|lmstudio|vllm|openai-compatible|groq|together|fireworks)[:]/;
/** Amazon Bedrock's cross-region inference profiles (`us.anthropic.claude-...`). */
const BEDROCK_REGION = /^(?:us|eu|apac|global|us-gov|jp|au|ca)\./;
/** Amazon Bedrock's `vendor.model` ids. */
const BEDROCK_VENDOR = /^(anthropic|meta|mistral|deepseek|qwen|openai|cohere|amazon|ai21|moonshot|moonshotai|writer)\.(.+)$/;

/** Which of the names below a model name is: its vendor or organisation (if it has one), its base name and its Ollama tag. */
function parts(encodingOrModel: string): { organisation: string | undefined; base: string; tag: string | undefined } {
  let name = encodingOrModel.trim().toLowerCase();
  // A specifier's model after '#': openai-compatible:http://127.0.0.1:11434/v1#llama3.1
  if (name.includes('#')) name = name.slice(name.lastIndexOf('#') + 1);
  while (PROVIDER_PREFIX.test(name)) name = name.replace(PROVIDER_PREFIX, '');
  name = name.replace(BEDROCK_REGION, '');
  let organisation: string | undefined;
  const bedrock = BEDROCK_VENDOR.exec(name);
  if (bedrock) [, organisation, name] = bedrock as unknown as [string, string, string];
  const slash = name.lastIndexOf('/');
  if (slash >= 0) {
    organisation = name.slice(0, slash).split('/').pop();
    name = name.slice(slash + 1);
  }
  // GGUF files and quantisation suffixes as LM Studio reports them.
  name = name.replace(/\.gguf$/, '').replace(/-gguf$/, '');
  // An Ollama tag (`qwen3:30b`); Bedrock's version suffix (`-v1:0`) is one too.
  const colon = name.indexOf(':');
  const tag = colon >= 0 ? name.slice(colon + 1) : undefined;
  const base = (colon >= 0 ? name.slice(0, colon) : name).replace(/^meta-(?=llama)/, '');
  return { organisation, base, tag };
}

/**
 * The tokenizer family of an encoding or model name, as users and servers
 * spell it: OpenAI names (`gpt-4o`, `o3`, `gpt-4`, `gpt-oss-120b`), encoding
 * names (`o200k_base`), Ollama tags (`qwen3:30b`, `gemma3:27b`,
 * `llama3.1:8b`), Hugging Face ids as vLLM and LM Studio report them
 * (`Qwen/Qwen3-32B`, `deepseek-ai/DeepSeek-V3`), OpenRouter ids
 * (`deepseek/deepseek-chat`), Bedrock ids
 * (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`), `claude-*`, `gemini-*`.
 * `unknown` (the bound of every family) for GLM, Kimi and any model whose
 * tokenizer is not one of the families, and where a name could be either
 * of two families: Ollama's `deepseek-r1:8b` is a distilled Qwen or Llama,
 * not DeepSeek's own tokenizer, and Mistral's models after Mixtral use a
 * tokenizer of their own (Tekken).
 */
export function tokenizerFamilyOf(encodingOrModel: string): TokenizerFamily {
  if (typeof encodingOrModel !== 'string') return 'unknown';
  // A pure function of the name, asked every call of trimHistory and every turn: kept for the names seen lately.
  let family = FAMILIES_SEEN.get(encodingOrModel);
  if (family === undefined) FAMILIES_SEEN.set(encodingOrModel, (family = familyOfName(encodingOrModel)));
  return family;
}

/** The families of the model names asked for lately (a few per process; bounded for a caller that makes names up). */
const FAMILIES_SEEN = new BoundedCache<string, TokenizerFamily>(256, { maxBytes: 64 * 1024, bytesOf: (name) => 2 * name.length });

function familyOfName(encodingOrModel: string): TokenizerFamily {
  const { organisation, base, tag } = parts(encodingOrModel);
  const direct = ENCODING_FAMILIES[base];
  if (direct) return direct;
  if (/^gpt-oss/.test(base)) return 'o200k_harmony';
  if (/^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|codex-)/.test(base)) return 'o200k';
  if (/^(?:gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada-002)/.test(base)) return 'cl100k';
  if (/(?:^|-)claude(?:-|$)/.test(base)) return 'claude';
  if (/^(?:gemma|codegemma|shieldgemma|gemini)/.test(base)) return 'gemma';
  if (/^(?:qwen|qwq|codeqwen)/.test(base) || /-distill-qwen/.test(base)) return 'qwen';
  if (/-distill-llama/.test(base)) return 'llama3';
  if (organisation === 'deepseek' || organisation === 'deepseek-ai' || /^deepseek/.test(base) || base.startsWith('r1-')) return deepseekFamily(base, tag, organisation);
  if (/^(?:llama-?4|llama4)/.test(base)) return 'unknown';
  if (/^(?:llama-?3|llama3)/.test(base)) return 'llama3';
  if (/^(?:llama-?2|llama2|codellama|llama$)/.test(base)) return 'llama2';
  if (/^mixtral/.test(base) || /^mistral(?:$|-7b|-instruct|-tiny|-v0)/.test(base)) return 'llama2';
  return 'unknown';
}

/**
 * DeepSeek's own tokenizer is V3's (V3, V3.1, V3.2, R1 and the API's
 * `deepseek-chat` and `deepseek-reasoner`). An Ollama `deepseek-r1` tag other
 * than 671b is a distilled Qwen or Llama model, and the older DeepSeek
 * Coder and V2 models have other vocabularies: those are `unknown`.
 */
function deepseekFamily(base: string, tag: string | undefined, organisation: string | undefined): TokenizerFamily {
  if (/^deepseek-(?:coder(?!-v3)|v2|llm|math|moe|vl)/.test(base)) return 'unknown';
  const ollamaDistill = organisation === undefined && /^deepseek-r1/.test(base) && (tag === undefined || !/^671b/.test(tag));
  return ollamaDistill ? 'unknown' : 'deepseek';
}
