import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { describe, requireArray, requireNonEmptyString } from './validate.js';

/** The domains of the specification. Applications may declare their own beside them. */
export const BUILT_IN_DOMAINS = Object.freeze(['ACTION', 'MEMORY', 'PERCEIVE', 'COGNITION', 'COMMUNICATION'] as const);

export type BuiltInDomain = (typeof BUILT_IN_DOMAINS)[number];

/**
 * What a block is useful for, and what a resolve asks for. A built-in domain,
 * or an application's own domain declared to the workspace as a custom domain.
 */
export type FocusedDomain = BuiltInDomain | (string & {});

/**
 * The domains a workspace accepts: the built-ins plus `customDomains`.
 * A custom domain must be a non-empty string, not repeat a built-in and not
 * repeat itself.
 */
export function knownDomains(customDomains: readonly string[] = []): ReadonlySet<FocusedDomain> {
  const domains = new Set<FocusedDomain>(BUILT_IN_DOMAINS);
  requireArray(customDomains, 'customDomains').forEach((domain, index) => {
    const field = `customDomains[${index}]`;
    requireNonEmptyString(domain, field);
    if (domains.has(domain as string)) {
      throw new ContextWorkspaceInputError({
        code: 'WORKSPACE_DUPLICATE_DOMAIN',
        field,
        message: `${field} ${describe(domain)} is already a known domain`,
      });
    }
    domains.add(domain as string);
  });
  return domains;
}

/** Checks one domain against the known set; `field` names it in the error. */
export function parseDomain(value: unknown, options: { known: ReadonlySet<FocusedDomain>; field: string }): FocusedDomain {
  const { known, field } = options;
  if (typeof value !== 'string' || !known.has(value)) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_UNKNOWN_DOMAIN',
      field,
      message: `${field} is ${describe(value)}, not a known domain (known: ${[...known].join(', ')})`,
    });
  }
  return value;
}

/**
 * An ordered list of requested domains: each known, none repeated (the order
 * is the weighting, so a repeat is ambiguous). May be empty.
 */
export function parseRequestedDomains(
  value: unknown,
  options: { known: ReadonlySet<FocusedDomain>; field: string },
): readonly FocusedDomain[] {
  const list = requireArray(value, options.field);
  const seen = new Set<FocusedDomain>();
  return list.map((domain, index) => {
    const field = `${options.field}[${index}]`;
    const parsed = parseDomain(domain, { known: options.known, field });
    if (seen.has(parsed)) {
      throw new ContextWorkspaceInputError({
        code: 'WORKSPACE_DUPLICATE_DOMAIN',
        field,
        message: `${field} repeats ${describe(parsed)}; each requested domain may appear once`,
      });
    }
    seen.add(parsed);
    return parsed;
  });
}
