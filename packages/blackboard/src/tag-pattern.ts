import { TagError } from './errors/tag-error.js';

/**
 * Tags are hierarchical Unicode names whose levels are joined by `.`:
 * `运行.事件流`, `角色卡.确认稿`, `设计.开场白#1`. A level is non-empty, has no
 * surrounding white space, and holds no `*` and no control character.
 *
 * A pattern is one of:
 * - an exact tag: `运行.事件流`;
 * - a prefix ending in `*`: `运行.*` matches every tag below `运行` (any depth,
 *   not `运行` itself); `设计.开场白#*` matches every tag starting `设计.开场白#`;
 * - `**`: every tag.
 */
export type TagPattern =
  | { readonly kind: 'exact'; readonly source: string; readonly tag: string }
  | { readonly kind: 'prefix'; readonly source: string; readonly prefix: string }
  | { readonly kind: 'all'; readonly source: string };

/** Longest tag accepted, in UTF-16 code units. */
export const MAX_TAG_LENGTH_CHARS = 256;

const CONTROL = /[\u0000-\u001f\u007f]/u;

function tagProblem(tag: string): string | undefined {
  if (tag.length === 0) return 'is empty';
  if (tag.length > MAX_TAG_LENGTH_CHARS) return `is longer than ${MAX_TAG_LENGTH_CHARS} characters`;
  if (CONTROL.test(tag)) return 'contains a control character';
  if (tag.includes('*')) return 'contains "*", which only patterns may use';
  for (const level of tag.split('.')) {
    if (level.length === 0) return 'has an empty level (a leading, trailing or doubled ".")';
    if (level.trim() !== level) return `has a level with surrounding white space ("${level}")`;
  }
  return undefined;
}

export function isValidTag(tag: string): boolean {
  return tagProblem(tag) === undefined;
}

/** Throws a `TagError` naming the tag when it is not a valid tag. */
export function assertValidTag(tag: string): void {
  const problem = tagProblem(tag);
  if (problem !== undefined) throw new TagError({ culprit: tag, message: `tag "${tag}" ${problem}` });
}

export function parseTagPattern(source: string): TagPattern {
  if (source === '**') return { kind: 'all', source };
  if (source.endsWith('*')) {
    const prefix = source.slice(0, -1);
    // `a.*` needs `a` to be a tag; `a#*` needs `a#` to read as a tag.
    const base = prefix.endsWith('.') ? prefix.slice(0, -1) : prefix;
    const problem = base.length === 0 ? 'has nothing before "*"' : tagProblem(base);
    if (problem !== undefined) throw new TagError({ culprit: source, message: `tag pattern "${source}" ${problem}` });
    return { kind: 'prefix', source, prefix };
  }
  const problem = tagProblem(source);
  if (problem !== undefined) throw new TagError({ culprit: source, message: `tag pattern "${source}" ${problem}` });
  return { kind: 'exact', source, tag: source };
}

export function isValidTagPattern(source: string): boolean {
  try {
    parseTagPattern(source);
    return true;
  } catch (error) {
    if (TagError.isInstance(error)) return false;
    throw error;
  }
}

export function matchesTagPattern(pattern: TagPattern | string, tag: string): boolean {
  const parsed = typeof pattern === 'string' ? parseTagPattern(pattern) : pattern;
  switch (parsed.kind) {
    case 'all':
      return true;
    case 'exact':
      return parsed.tag === tag;
    case 'prefix':
      return tag.startsWith(parsed.prefix) && tag.length > parsed.prefix.length;
  }
}

export function matchesAnyTagPattern(patterns: readonly (TagPattern | string)[], tag: string): boolean {
  return patterns.some((pattern) => matchesTagPattern(pattern, tag));
}

/** True when every tag `inner` can match is also matched by `outer`. */
export function tagPatternWithin(inner: TagPattern | string, outer: TagPattern | string): boolean {
  const innerPattern = typeof inner === 'string' ? parseTagPattern(inner) : inner;
  const outerPattern = typeof outer === 'string' ? parseTagPattern(outer) : outer;
  if (outerPattern.kind === 'all') return true;
  if (innerPattern.kind === 'all') return false;
  if (outerPattern.kind === 'exact') return innerPattern.kind === 'exact' && innerPattern.tag === outerPattern.tag;
  if (innerPattern.kind === 'exact') return matchesTagPattern(outerPattern, innerPattern.tag);
  return innerPattern.prefix.startsWith(outerPattern.prefix);
}

/** True when some pattern of `outers` covers `inner` whole. */
export function tagPatternWithinAny(inner: TagPattern | string, outers: readonly (TagPattern | string)[]): boolean {
  return outers.some((outer) => tagPatternWithin(inner, outer));
}
