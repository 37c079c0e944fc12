import type { SystemSection } from './contributor.js';
import { compareSections } from './budget.js';
import { escapeAttribute, escapeWrapped } from './wrapper-markup.js';

export interface RenderedSystemPrompt {
  readonly text: string;
  readonly sectionIds: readonly string[];
}

export interface SystemPromptRenderer {
  render(sections: readonly SystemSection[]): RenderedSystemPrompt;
}

/** The opening tag the validator looks for to prove a section is present. */
export function sectionTag(id: string): string {
  return `<section id="${escapeAttribute(id)}">`;
}

/**
 * Same sections in, same bytes out: sections sorted by slot, order and id,
 * each framed by its tag, so provider prompt caches keep hitting. A
 * section's title and content are escaped (`escapeWrapped`): no section can
 * close itself early or open another.
 */
export class DeterministicSystemPromptRenderer implements SystemPromptRenderer {
  render(sections: readonly SystemSection[]): RenderedSystemPrompt {
    const sorted = [...sections].sort(compareSections);
    const text = sorted
      .map((section) => `${sectionTag(section.id)}\n${section.title ? `# ${escapeWrapped(section.title)}\n` : ''}${escapeWrapped(section.content)}\n</section>`)
      .join('\n\n');
    return { text, sectionIds: sorted.map((section) => section.id) };
  }
}
