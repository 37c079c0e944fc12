import type { LanguageModelMiddleware, ModelMessage } from 'ai';
import { toPromptMessages } from '@strata/context';

/** A language model's call options (`LanguageModelV3CallOptions`), named through `ai` so no other package is needed. */
export type LanguageModelCallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
/** One message of a language model's prompt (`LanguageModelV3Message`). */
export type LanguageModelMessage = LanguageModelCallOptions['prompt'][number];

/**
 * `ModelMessage`s Strata wrote, in the prompt's stricter shape: text content
 * as a text part, images as file parts, media given as a URL as `URL`s.
 */
export function toLanguageModelMessages(messages: readonly ModelMessage[]): LanguageModelMessage[] {
  return toPromptMessages<LanguageModelMessage>(messages);
}
