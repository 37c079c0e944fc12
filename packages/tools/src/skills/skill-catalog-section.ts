import { ConfigurationError } from '@strata/context';
import type { ContextContributor, ContextContributorFactory, ContextScope, SystemSection } from '@strata/context';
import type { SkillCatalog, SkillEntry } from './load-skills.js';

export const SKILL_CATALOG_SECTION_ID = 'skills.catalog';

export interface SkillCatalogSectionOptions {
  /** The skills to list, by name; default all. An unknown name is a `ConfigurationError`. */
  readonly select?: readonly string[];
  /** Order within the `skills` slot. Default 0. */
  readonly order?: number;
}

function selectedSkills(catalog: SkillCatalog, select: readonly string[] | undefined): readonly SkillEntry[] {
  if (select === undefined) return catalog.skills;
  const known = new Set(catalog.skills.map((skill) => skill.name));
  const unknown = select.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new ConfigurationError({ setting: 'skills.select', message: `selected skills not found in ${catalog.directory}: ${unknown.join(', ')}` });
  }
  const wanted = new Set(select);
  return catalog.skills.filter((skill) => wanted.has(skill.name));
}

/**
 * The stable system-prompt section of the skill catalog: names and
 * descriptions only, sorted by name. Skill bodies never enter the system
 * prompt; the model loads one with `read_skill`. Undefined when no skill is
 * selected.
 */
export function skillCatalogSection(catalog: SkillCatalog, options: SkillCatalogSectionOptions = {}): SystemSection | undefined {
  const skills = selectedSkills(catalog, options.select);
  if (skills.length === 0) return undefined;
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, ' ')}`);
  return {
    id: SKILL_CATALOG_SECTION_ID,
    slot: 'skills',
    title: 'Skills',
    order: options.order ?? 0,
    content: [
      'Skills hold instructions for specialised tasks. Only their names and descriptions are listed here. Before using a skill, load its instructions with read_skill {"name": "<skill name>"}.',
      '',
      ...lines,
    ].join('\n'),
  };
}

export interface SkillCatalogContributorOptions extends SkillCatalogSectionOptions {
  readonly catalog: SkillCatalog;
  /** Scopes that see the catalog. Default all. */
  readonly scopes?: readonly ContextScope[];
}

/** A contributor factory that adds the catalog section; the section is built once, so every turn gets the same bytes. */
export function skillCatalogContributorFactory(options: SkillCatalogContributorOptions): ContextContributorFactory {
  const section = skillCatalogSection(options.catalog, options);
  return {
    id: 'skills.catalog',
    create({ scope }): ContextContributor | readonly ContextContributor[] {
      if (section === undefined || (options.scopes !== undefined && !options.scopes.includes(scope))) return [];
      return { id: 'skills.catalog', scopes: [scope], contribute: () => ({ sections: [section] }) };
    },
  };
}
