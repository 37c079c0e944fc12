import type { CanonicalMessage, TokenEstimator, ToolSchema } from '@strata/context';
import type { BlackboardAuthor, BlackboardEntry } from '../blackboard-store.js';

/**
 * A token estimator with hand-checkable counts for golden tests: one token
 * per code point that is not a newline. Not a model of any tokenizer.
 */
export const CODE_POINT_ESTIMATOR: TokenEstimator = Object.freeze({
  family: 'unknown' as const,
  exact: false,
  countText: (text: string) => Array.from(text.replaceAll('\n', '')).length,
  countMessage: (message: CanonicalMessage) => Array.from(message.content.replaceAll('\n', '')).length + 4,
  countTool: (tool: ToolSchema) => Array.from(tool.name).length + 12,
});

/** Builds entries with consecutive revisions for pure-function tests. */
export function entriesOf(
  rows: readonly (readonly [tag: string, content: string, author?: BlackboardAuthor, role?: string])[],
): BlackboardEntry[] {
  return rows.map(([tag, content, author, role], index) => ({
    tag,
    content,
    author: author ?? { kind: 'user' },
    ...(role === undefined ? {} : { role }),
    revision: index + 1,
    createdAt: '2026-01-02T03:04:05.000Z',
  }));
}
