import type { DeferredToolInfo } from './tool-registry.js';

export interface ToolSearchMatch {
  readonly name: string;
  readonly description: string;
  readonly score: number;
}

/** Weights of a query word found in each field; the name counts most. */
const NAME_WEIGHT = 3;
const HINT_WEIGHT = 2;
const DESCRIPTION_WEIGHT = 1;
/** The score of a query that is exactly a tool's name. */
const EXACT_NAME_BONUS = 10;

/** Lower-cased words (letters and digits of any script); `_`, `-`, `.` and spaces separate them. */
export function searchWords(text: string): readonly string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}

/**
 * Ranks deferred tools for a literal query over name, routing hints and
 * description. A query equal to a tool's name finds that tool alone;
 * otherwise a tool matches when at least one query word occurs in one of
 * them, and ties break on name, so the order is deterministic.
 */
export function searchDeferredTools(tools: readonly DeferredToolInfo[], query: string): readonly ToolSearchMatch[] {
  const wholeQuery = query.trim().toLowerCase();
  // A query that is exactly a tool's name asks for that tool, not for everything sharing its prefix.
  const named = tools.find((tool) => tool.name.toLowerCase() === wholeQuery);
  if (named !== undefined) return [{ name: named.name, description: named.description, score: EXACT_NAME_BONUS }];
  const words = [...new Set(searchWords(query))];
  const matches: ToolSearchMatch[] = [];
  for (const tool of tools) {
    const name = tool.name.toLowerCase();
    const nameWords = searchWords(tool.name).join(' ');
    const hints = tool.routingHints.map((hint) => hint.toLowerCase()).join('\n');
    const description = tool.description.toLowerCase();
    let score = 0;
    for (const word of words) {
      if (name.includes(word) || nameWords.includes(word)) score += NAME_WEIGHT;
      if (hints.includes(word)) score += HINT_WEIGHT;
      if (description.includes(word)) score += DESCRIPTION_WEIGHT;
    }
    if (score > 0) matches.push({ name: tool.name, description: tool.description, score });
  }
  return matches.sort((left, right) => right.score - left.score || (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}
