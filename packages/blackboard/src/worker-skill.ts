/**
 * A worker skill as declared in `workers/<name>/SKILL.md` (seed 004 §4, §7):
 * what it may read, what it writes, how its prompt is cut into segments, and
 * what it must not see.
 */
export interface WorkerSkill {
  readonly name: string;
  readonly description?: string;
  /** Where it was read from, for messages. */
  readonly file: string;
  /** Whitelist of patterns the worker may read; every segment pattern lies within it. */
  readonly inputTags: readonly string[];
  /** Exact tags the worker writes. */
  readonly outputTags: readonly string[];
  /** Output tags that are final products (entry role `final`); the others are process tags. Default: all. */
  readonly finalTags: readonly string[];
  /** Absent: the fallback form (the input tags as JSON in `inputTags` order). */
  readonly contextSegments?: readonly ContextSegment[];
  readonly contextIsolation: ContextIsolation;
  readonly variants: Readonly<Record<string, SkillVariant>>;
  /** The Markdown body: capabilities, output format, self-check. */
  readonly body: string;
}

export type SegmentTier = 'static' | 'dynamic';

export interface ContextSegment {
  readonly id: string;
  /** `static` rides on top (cache-stable), `dynamic` below. */
  readonly tier: SegmentTier;
  /** Patterns fetched from the blackboard, each within `inputTags`. */
  readonly tags: readonly string[];
  /** Markdown heading put before the segment's content. */
  readonly label?: string;
  /** Trimming of a dynamic segment (see `SegmentPolicy`); default `latest`. */
  readonly policy?: string;
}

/** Isolation is applied after fetching and before assembly (seed 004 §7). */
export type ContextIsolation =
  | { readonly mode: 'none' }
  | {
      readonly mode: 'role_pov';
      /** Tags `<prefix>.<role>` and below belong to one role. Default `角色`. */
      readonly roleTagsPrefix: string;
      /** Patterns only the user's side may see (their inner thoughts). Default `用户.心理`, `用户.心理.*`. */
      readonly userOnlyTags: readonly string[];
    }
  | { readonly mode: 'blind_review'; readonly hiddenTags: readonly string[] };

export const DEFAULT_ROLE_TAGS_PREFIX = '角色';
export const DEFAULT_USER_ONLY_TAGS: readonly string[] = Object.freeze(['用户.心理', '用户.心理.*']);

/** A named override set predefined in the skill; a profile picks one, never tags. */
export interface SkillVariant {
  /** Field overrides of existing segments, matched by `id`. */
  readonly segments?: readonly SegmentOverride[];
  /** Policy per existing segment id. */
  readonly policies?: Readonly<Record<string, string>>;
  /** Existing segment ids this variant leaves out. */
  readonly omitSegments?: readonly string[];
}

export interface SegmentOverride {
  readonly id: string;
  readonly tier?: SegmentTier;
  readonly tags?: readonly string[];
  readonly label?: string;
  readonly policy?: string;
}
