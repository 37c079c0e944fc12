import type { ContextOrder } from './context-order.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { matchesTagPattern, tagPatternWithin } from './tag-pattern.js';
import { DEFAULT_WELL_KNOWN_TAGS, type WellKnownTags } from './well-known-tags.js';

/**
 * Who a tag feeds. `design_only`: creation hand-offs that only guide later
 * writing; `program`: presentation shells the program owns (the model sees
 * only the data contract); `play`: the play projection. Absent means `play`.
 */
export type TagFeeds = 'design_only' | 'program' | 'play';

export interface BindPlayProjectionOptions {
  readonly order: ContextOrder;
  /** Feeds per tag or tag pattern. */
  readonly feeds?: Readonly<Record<string, TagFeeds>>;
  readonly tags?: WellKnownTags;
}

export interface BindPlayProjectionResult {
  readonly order: ContextOrder;
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/**
 * Play binding (seed 004 §2.1): what the projection order table keeps when a
 * dialogue is bound for play. Design-only and program-owned tags, openings
 * (they enter the history instead) and orchestration tags (the worker set,
 * the table itself) never enter the play projection; each removal is reported.
 */
export function bindPlayProjection(options: BindPlayProjectionOptions): BindPlayProjectionResult {
  const tags = options.tags ?? DEFAULT_WELL_KNOWN_TAGS;
  const feeds = Object.entries(options.feeds ?? {}).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  const diagnostics: BlackboardDiagnostic[] = [];
  const inserts = options.order.inserts.filter((insert) => {
    const reason = exclusionReason(insert.tag, feeds, tags);
    if (reason === undefined) return true;
    diagnostics.push({ code: 'BLACKBOARD_PLAY_TAG_EXCLUDED', subject: insert.tag, message: `${insert.tag} left out of the play projection: ${reason}` });
    return false;
  });
  return { order: { inserts }, diagnostics };
}

function exclusionReason(tag: string, feeds: readonly (readonly [string, TagFeeds])[], tags: WellKnownTags): string | undefined {
  for (const [pattern, feed] of feeds) {
    if (feed !== 'play' && tagPatternWithin(tag, pattern)) return feed === 'design_only' ? 'feeds design_only' : 'feeds program (the program owns its presentation)';
  }
  if (tagPatternWithin(tag, tags.openings) || matchesTagPattern(tags.openings, tag)) return 'an opening (openings enter the history)';
  if (tag === tags.workerSet) return 'orchestration (the worker set)';
  if (tag === tags.contextOrder) return 'the order table itself';
  return undefined;
}
