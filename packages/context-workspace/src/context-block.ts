import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import type { FocusedDomain } from './focused-domain.js';
import { DEFAULT_URGENCY, parseUrgency, type Urgency } from './urgency.js';
import { describe, requireArray, requireFactor, requireNonEmptyString, requireRecord, requireString } from './validate.js';

/** One projection of a block: its text and the urgency it carries when rendered. */
export interface BlockContent {
  /** Plain text; rendering escapes it, so it can never close or forge a tag. */
  readonly content: string;
  readonly urgency: Urgency;
}

/** A projection as given: text alone takes the block's urgency. */
export type BlockContentInit = string | { readonly content: string; readonly urgency?: Urgency };

/**
 * A validated, frozen context block: what one module publishes about one
 * source. Its activation score lives in the workspace, not here, so the same
 * block is plain data that can be compared, logged and snapshotted.
 */
export interface ContextBlock {
  /** The XML element name the block renders as. With `source`, its SourceKey. */
  readonly blockName: string;
  readonly source: string;
  /** A set: unique, sorted by code unit, never empty. */
  readonly focusedOn: readonly FocusedDomain[];
  readonly urgency: Urgency;
  /** The full projection. */
  readonly blockContent: BlockContent;
  /** Default: the full projection. */
  readonly compactBlock: BlockContent;
  /** Default: the compact projection. */
  readonly abstractBlock: BlockContent;
  /** Subtracted from this block's score when a newer block of the same SourceKey registers. */
  readonly replaceFadeFactor: number;
  /** Score lost per minute, charged per elapsed second. */
  readonly timeFadeFactor: number;
  /** Score gained per activation, before the exposure and level multipliers and ceilings. */
  readonly activateFactor: number;
}

export interface ContextBlockInit {
  readonly blockName: string;
  readonly source: string;
  readonly focusedOn: Iterable<FocusedDomain>;
  readonly blockContent: BlockContentInit;
  readonly compactBlock?: BlockContentInit;
  readonly abstractBlock?: BlockContentInit;
  /** Default: NORMAL. */
  readonly urgency?: Urgency;
  readonly replaceFadeFactor: number;
  readonly timeFadeFactor: number;
  readonly activateFactor: number;
}

/** A block is identified for replacement, expiry and aggregation by name and source only. */
export interface SourceKey {
  readonly blockName: string;
  readonly source: string;
}

/** An XML element name: letters, digits, `_`, `-`, `.`; not starting with a digit, `-` or `.`. */
const BLOCK_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const validated = new WeakSet<ContextBlock>();

/**
 * Validates and freezes a block. Throws `ContextWorkspaceInputError` naming
 * the field: an empty block name or source, a name that is no XML element
 * name, an empty `focusedOn`, a NaN, negative or infinite factor, an unknown
 * urgency. Domains are checked against a workspace's known domains when the
 * block registers.
 */
export function contextBlock(init: ContextBlockInit): ContextBlock {
  requireRecord(init, 'block');
  const blockName = requireNonEmptyString(init.blockName, 'blockName');
  if (!BLOCK_NAME_PATTERN.test(blockName)) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_NAME',
      field: 'blockName',
      message: `blockName ${describe(blockName)} is not an XML element name (letters, digits, _ - .; not starting with a digit, - or .)`,
    });
  }
  const source = requireNonEmptyString(init.source, 'source');
  const urgency = init.urgency === undefined ? DEFAULT_URGENCY : parseUrgency(init.urgency, 'urgency');
  const focusedOn = parseFocusedOn(init.focusedOn);
  const blockContent = parseContent(init.blockContent, { field: 'blockContent', urgency });
  const compactBlock = init.compactBlock === undefined ? blockContent : parseContent(init.compactBlock, { field: 'compactBlock', urgency });
  const abstractBlock = init.abstractBlock === undefined ? compactBlock : parseContent(init.abstractBlock, { field: 'abstractBlock', urgency });
  const block: ContextBlock = Object.freeze({
    blockName,
    source,
    focusedOn,
    urgency,
    blockContent,
    compactBlock,
    abstractBlock,
    replaceFadeFactor: requireFactor(init.replaceFadeFactor, 'replaceFadeFactor'),
    timeFadeFactor: requireFactor(init.timeFadeFactor, 'timeFadeFactor'),
    activateFactor: requireFactor(init.activateFactor, 'activateFactor'),
  });
  validated.add(block);
  return block;
}

/** The block itself when `contextBlock` made it; otherwise validated now (a hand-built literal). */
export function ensureContextBlock(block: ContextBlock | ContextBlockInit): ContextBlock {
  return validated.has(block as ContextBlock) ? (block as ContextBlock) : contextBlock(block);
}

/** A map key for a SourceKey; NUL cannot occur in an XML name. */
export function sourceKeyId(key: SourceKey): string {
  return `${key.blockName}\u0000${key.source}`;
}

function parseFocusedOn(value: unknown): readonly FocusedDomain[] {
  if (value === null || typeof value !== 'object' || !(Symbol.iterator in value)) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_TYPE',
      field: 'focusedOn',
      message: `focusedOn must be a set or array of domains, got ${describe(value)}`,
    });
  }
  const list = requireArray([...(value as Iterable<unknown>)], 'focusedOn');
  const domains = new Set<string>();
  list.forEach((domain, index) => domains.add(requireNonEmptyString(domain, `focusedOn[${index}]`)));
  if (domains.size === 0) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_EMPTY_TEXT',
      field: 'focusedOn',
      message: 'focusedOn must name at least one domain; a block focused on nothing is never resolved',
    });
  }
  return Object.freeze([...domains].sort(compareCodeUnits));
}

function parseContent(value: unknown, options: { field: string; urgency: Urgency }): BlockContent {
  const { field } = options;
  if (typeof value === 'string') return Object.freeze({ content: value, urgency: options.urgency });
  const record = requireRecord(value, field);
  const content = requireString(record.content, `${field}.content`);
  const urgency = record.urgency === undefined ? options.urgency : parseUrgency(record.urgency, `${field}.urgency`);
  return Object.freeze({ content, urgency });
}

/** Plain code-unit order, the same on every machine (no locale). */
export function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
