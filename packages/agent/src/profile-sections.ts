import type { ContextContributorFactory, SectionSlot, SystemSection } from '@strata/context';

export interface ProfileSections {
  /** Who the agent is. Protected: never truncated. */
  readonly identity?: string;
  /** Rules the agent must follow. Protected. */
  readonly governance?: string;
  /** What this run must deliver and within which limits. Protected. */
  readonly runContract?: string;
  /** Other stable guidance, admitted after the protected sections. */
  readonly guidance?: string;
}

const SLOTS: ReadonlyArray<[keyof ProfileSections, SectionSlot]> = [
  ['identity', 'identity'],
  ['governance', 'governance'],
  ['runContract', 'run_contract'],
  ['guidance', 'guidance'],
];

/** The profile's own system-prompt sections, as a required contributor. */
export function profileSectionsFactory(sections: ProfileSections): ContextContributorFactory {
  const list: SystemSection[] = SLOTS.flatMap(([key, slot]) => {
    const content = sections[key];
    return content === undefined || content.trim() === '' ? [] : [{ id: `profile.${slot}`, slot, content }];
  });
  return {
    id: 'strata.profile-sections',
    create: ({ scope }) => ({ id: 'profile-sections', scopes: [scope], required: true, contribute: () => ({ sections: list }) }),
  };
}
