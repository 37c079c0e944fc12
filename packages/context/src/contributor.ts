import type { CanonicalHistory } from './messages.js';

export type ContextScope = 'main' | 'subagent' | 'reviewer';

/**
 * Slots order admission and rendering. Protected slots (identity, governance,
 * run contract) are admitted first and never truncated.
 */
export type SectionSlot =
  | 'identity'
  | 'governance'
  | 'run_contract'
  | 'capabilities'
  | 'skills'
  | 'state'
  | 'guidance';

export const PROTECTED_SLOTS: ReadonlySet<SectionSlot> = new Set(['identity', 'governance', 'run_contract']);

export interface SystemSection {
  readonly id: string;
  readonly slot: SectionSlot;
  readonly title?: string;
  readonly content: string;
  /** Lower first within a slot; ties break on id. Default 0. */
  readonly order?: number;
}

/** A bounded, call-local user message. Contributors may only speak as the user. */
export interface ContributedMessage {
  readonly id: string;
  readonly role: 'user';
  readonly content: string;
}

export type AttachmentTrust = 'trusted_data' | 'untrusted_data';

export interface DataAttachment {
  readonly id: string;
  readonly source: string;
  readonly trust: AttachmentTrust;
  readonly content: string;
}

export type DiagnosticSeverity = 'info' | 'warning' | 'error';

/** Something worth knowing that is not fatal. `code` is stable, e.g. CONTEXT_SECTION_TRUNCATED. */
export interface ContextDiagnostic {
  readonly code: string;
  readonly severity: DiagnosticSeverity;
  readonly message: string;
  /** The contributor, section, attachment or message the diagnostic is about. */
  readonly subject?: string;
}

export interface ContextContribution {
  readonly sections?: readonly SystemSection[];
  readonly messages?: readonly ContributedMessage[];
  readonly attachments?: readonly DataAttachment[];
  readonly diagnostics?: readonly ContextDiagnostic[];
}

export interface ContributionRequest {
  readonly contextId: string;
  readonly scope: ContextScope;
  readonly turn: number;
  /** The model-visible history as of this collection. Read only. */
  readonly history: CanonicalHistory;
  readonly signal: AbortSignal;
}

export interface ContextContributor {
  readonly id: string;
  readonly scopes: readonly ContextScope[];
  /** A failing required contributor fails the turn; an optional one becomes a warning. */
  readonly required?: boolean;
  /** Per-contributor timeout in milliseconds; the registry default applies when absent. */
  readonly timeoutMs?: number;
  contribute(request: ContributionRequest): Promise<ContextContribution> | ContextContribution;
}

export interface ContributorFactoryOptions {
  readonly contextId: string;
  readonly scope: ContextScope;
}

/** What a capability package exports to add context without importing the agent. */
export interface ContextContributorFactory {
  readonly id: string;
  create(options: ContributorFactoryOptions): ContextContributor | readonly ContextContributor[];
}
