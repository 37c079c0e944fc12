import type { CanonicalHistory, ContextContributor, ContextContributorFactory } from '@strata/context';

/** A skill the agent read: its frozen revision is the durable reference. */
export interface SkillReference {
  readonly name: string;
  readonly revision: string;
  /** The `read_skill` call whose result carried the body. */
  readonly toolCallId: string;
}

/** True when the read_skill result is still in the history with its body intact (not masked or summarized away). */
function bodyVisible(history: CanonicalHistory, reference: SkillReference): boolean {
  return history.some((message) => message.role === 'tool' && message.toolCallId === reference.toolCallId && message.masked !== true);
}

/**
 * The data channel for skill references. When compaction removed or masked
 * the original `read_skill` result, tells the agent the instructions are not
 * in context any more, so it calls `read_skill` again. The skill body is
 * never copied into the system prompt.
 */
export function skillReferenceContributorFactory(options: { references: () => readonly SkillReference[] }): ContextContributorFactory {
  return {
    id: 'strata.skill-references',
    create({ scope }): ContextContributor {
      return {
        id: 'skill-references',
        scopes: [scope],
        contribute(request) {
          const latest = new Map<string, SkillReference>();
          for (const reference of options.references()) latest.set(reference.name, reference);
          const unavailable = [...latest.values()].filter((reference) => !bodyVisible(request.history, reference)).sort((left, right) => (left.name < right.name ? -1 : 1));
          if (unavailable.length === 0) return {};
          return {
            messages: [
              {
                id: 'skill-references.unavailable',
                role: 'user',
                content: unavailable
                  .map((reference) => `Skill "${reference.name}" (revision ${reference.revision}) was read earlier, but its instructions are no longer in context. Call read_skill for "${reference.name}" again before following it.`)
                  .join('\n'),
              },
            ],
          };
        },
      };
    },
  };
}
