import type {
  AttachmentTrust,
  ContextContribution,
  ContextContributor,
  ContextContributorFactory,
  ContextScope,
  ContributorFactoryOptions,
  TokenEstimator,
} from '@strata/context';
import type { ContextWorkspace } from './context-workspace.js';
import { parseRequestedDomains, type FocusedDomain } from './focused-domain.js';
import { parseTokenBudget } from './token-budget.js';
import { requireNonEmptyString } from './validate.js';

export interface WorkspaceContributorOptions {
  /** Only `resolve` and `domains` are used. */
  readonly workspace: Pick<ContextWorkspace, 'resolve' | 'domains'>;
  /** The ordered domains to resolve each turn, fixed or chosen per run (context id and scope). */
  readonly domains: readonly FocusedDomain[] | ((options: ContributorFactoryOptions) => readonly FocusedDomain[]);
  /** Factory, contributor and attachment id. Default: `context-workspace`. */
  readonly id?: string;
  /** Default: `['main']`. */
  readonly scopes?: readonly ContextScope[];
  /** Default: `untrusted_data`: blocks may carry perceived or tool-derived text. */
  readonly trust?: AttachmentTrust;
  /** Default: false; a failing optional contributor becomes a warning, not a failed turn. */
  readonly required?: boolean;
  /** With `estimator`: the resolve's token budget (see `ResolveOptions`). */
  readonly maxTokens?: number;
  readonly estimator?: TokenEstimator;
}

const DEFAULTS = Object.freeze({
  id: 'context-workspace',
  scopes: Object.freeze(['main'] as const satisfies readonly ContextScope[]),
  trust: 'untrusted_data' as AttachmentTrust,
  required: false,
});

/** The attachment source, so the model and traces can tell workspace data from other attachments. */
export const WORKSPACE_ATTACHMENT_SOURCE = 'context-workspace';

/**
 * A contributor factory that resolves a workspace for a run's domains every
 * turn and contributes the result as one data attachment (nothing when no
 * block matched), with budget diagnostics passed on as data. The agent loop
 * uses it through `@strata/context` alone. Options and the run's domains are
 * checked when the factory and the contributor are created, so a typo fails
 * at wiring time, not mid-run.
 */
export function workspaceContributorFactory(options: WorkspaceContributorOptions): ContextContributorFactory {
  // Defaults merged with `??`: an option passed as undefined keeps its default.
  const merged = {
    ...options,
    id: options.id ?? DEFAULTS.id,
    scopes: options.scopes ?? DEFAULTS.scopes,
    trust: options.trust ?? DEFAULTS.trust,
    required: options.required ?? DEFAULTS.required,
  };
  const id = requireNonEmptyString(merged.id, 'id');
  const budget = parseTokenBudget(merged);
  const resolveOptions = { maxTokens: budget?.maxTokens, estimator: budget?.estimator };
  const { workspace } = merged;
  if (typeof merged.domains !== 'function') {
    parseRequestedDomains(merged.domains, { known: workspace.domains, field: 'domains' });
  }
  return {
    id,
    create(factoryOptions: ContributorFactoryOptions): ContextContributor {
      const chosen = typeof merged.domains === 'function' ? merged.domains(factoryOptions) : merged.domains;
      const domains = parseRequestedDomains(chosen, { known: workspace.domains, field: 'domains' });
      return {
        id,
        scopes: merged.scopes,
        required: merged.required,
        contribute(request): ContextContribution {
          request.signal.throwIfAborted();
          const resolved = workspace.resolve(domains, resolveOptions);
          if (resolved.blocks.length === 0) return { diagnostics: resolved.diagnostics };
          return {
            attachments: [{ id, source: WORKSPACE_ATTACHMENT_SOURCE, trust: merged.trust, content: resolved.text }],
            diagnostics: resolved.diagnostics,
          };
        },
      };
    },
  };
}
