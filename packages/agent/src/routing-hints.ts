import type { ToolRegistry } from '@strata/tools';

/** A profile's routing hint: a request that mentions any of `words` gets `tools` promoted before its first model call. */
export interface RoutingHint {
  readonly words: readonly string[];
  readonly tools: readonly string[];
}

/**
 * Pre-promotes the deferred tools whose hints the request matches (a word
 * found in the request, ignoring case; words of any script, so no word
 * boundaries are assumed). Returns the names newly promoted, sorted.
 */
export function promoteByRoutingHints(options: { registry: ToolRegistry; request: string; hints: readonly RoutingHint[] }): readonly string[] {
  const request = options.request.toLowerCase();
  const matched = options.hints.filter((hint) => hint.words.some((word) => word.trim() !== '' && request.includes(word.trim().toLowerCase())));
  return options.registry.promote(matched.flatMap((hint) => hint.tools));
}
