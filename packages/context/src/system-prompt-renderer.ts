import type { SystemSection } from './contributor.js';
import { compareSections } from './budget.js';

export interface RenderedSystemPrompt {
  readonly text: string;
  readonly sectionIds: readonly string[];
}

export interface SystemPromptRenderer {
  render(sections: readonly SystemSection[]): RenderedSystemPrompt;
}

/** The opening tag the validator looks for to prove a section is present. */
export function sectionTag(id: string): string {
  return `<section id="${id}">`;
}

/**
 * Same sections in, same bytes out: sections sorted by slot, order and id,
 * each framed by its tag, so provider prompt caches keep hitting.
 */
export class DeterministicSystemPromptRenderer implements SystemPromptRenderer {
  render(sections: readonly SystemSection[]): RenderedSystemPrompt {
    const sorted = [...sections].sort(compareSections);
    const text = sorted
      .map((section) => `${sectionTag(section.id)}\n${section.title ? `# ${section.title}\n` : ''}${section.content}\n</section>`)
      .join('\n\n');
    return { text, sectionIds: sorted.map((section) => section.id) };
  }
}
