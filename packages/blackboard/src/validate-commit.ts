import type { BlackboardCommit } from './blackboard-store.js';
import { TagError } from './errors/tag-error.js';
import { assertValidTag } from './tag-pattern.js';

/** In a `u` regex a surrogate class matches only surrogates that are not part of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Checks a commit before any store touches its data, so every store rejects
 * the same commits the same way. Throws `TagError` naming the culprit.
 */
export function validateCommit(commit: BlackboardCommit): void {
  if (commit.author.kind === 'worker' && commit.author.name.length === 0) {
    throw new TagError({ culprit: 'author.name', message: 'a worker author needs a name' });
  }
  (commit.remove ?? []).forEach((revision, index) => {
    if (!Number.isSafeInteger(revision) || revision < 1) {
      throw new TagError({ culprit: `remove[${index}]`, message: `remove[${index}] must be a positive integer revision, not ${String(revision)}` });
    }
  });
  commit.writes.forEach((write, index) => {
    try {
      if (LONE_SURROGATE.test(write.tag)) throw new TagError({ culprit: write.tag, message: 'tag holds a lone surrogate' });
      assertValidTag(write.tag);
    } catch (error) {
      if (TagError.isInstance(error)) throw new TagError({ culprit: write.tag, message: `writes[${index}]: ${error.message}` });
      throw error;
    }
    if (typeof write.content !== 'string') {
      throw new TagError({ culprit: write.tag, message: `writes[${index}] (${write.tag}): content must be a string` });
    }
    // A lone surrogate cannot round-trip through UTF-8 stores; reject it everywhere alike.
    if (LONE_SURROGATE.test(write.content)) {
      throw new TagError({ culprit: write.tag, message: `writes[${index}] (${write.tag}): content holds a lone surrogate (not well-formed Unicode)` });
    }
    if (write.mode !== undefined && write.mode !== 'append' && write.mode !== 'replace') {
      throw new TagError({ culprit: write.tag, message: `writes[${index}] (${write.tag}): mode must be "append" or "replace"` });
    }
  });
}
