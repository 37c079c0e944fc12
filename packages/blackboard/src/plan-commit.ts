import type { BlackboardCommit, BlackboardEntry, BlackboardWrite } from './blackboard-store.js';
import { BlackboardConflictError } from './errors/blackboard-conflict-error.js';

/** A write of a commit and the entry it becomes. */
export interface PlannedWrite {
  readonly write: BlackboardWrite;
  readonly entry: BlackboardEntry;
}

export interface CommitPlan {
  /** In write order; revisions run from the head revision + 1. */
  readonly writes: readonly PlannedWrite[];
  /** The head revision once the commit lands. */
  readonly revision: number;
}

/**
 * What every blackboard store does with a validated commit once it holds the
 * head revision: refuses it with `BlackboardConflictError` when it expects
 * another head, else numbers its writes. The store then removes
 * `commit.remove`, and for each planned write in order removes the tag's
 * entries first when the write is a `replace`, then adds the entry.
 */
export function planCommit(commit: BlackboardCommit, options: { readonly head: number; readonly createdAt: string }): CommitPlan {
  const { head, createdAt } = options;
  if (commit.expectedRevision !== undefined && commit.expectedRevision !== head) {
    throw new BlackboardConflictError({ expectedRevision: commit.expectedRevision, actualRevision: head });
  }
  const writes = commit.writes.map((write, index): PlannedWrite => {
    const entry: BlackboardEntry = {
      tag: write.tag,
      content: write.content,
      author: commit.author,
      // An entry without a role has no `role` key, as stores read it back.
      ...(write.role === undefined ? {} : { role: write.role }),
      revision: head + index + 1,
      createdAt,
    };
    return { write, entry };
  });
  return { writes, revision: head + writes.length };
}
