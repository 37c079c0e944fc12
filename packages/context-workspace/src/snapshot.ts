import { MAX_ACTIVATION_SCORE } from './activation.js';
import { contextBlock, type BlockContent, type ContextBlock } from './context-block.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { parseDomain, type FocusedDomain } from './focused-domain.js';
import { parseUrgency, type Urgency } from './urgency.js';
import { describe, requireArray, requireInteger, requireNumberInRange, requireRecord, requireString } from './validate.js';

export const CONTEXT_WORKSPACE_SNAPSHOT_FORMAT = 'strata.context-workspace';

/**
 * A workspace as JSON, version 1. Scores are stored as last written with the
 * time they were written (`touchedAtMs`), so a restored workspace charges
 * time fade for every millisecond since, across a restart, exactly as if it
 * had kept running. Blocks are in registration order. A change to this shape
 * is a new version.
 */
export interface ContextWorkspaceSnapshotV1 {
  readonly format: typeof CONTEXT_WORKSPACE_SNAPSHOT_FORMAT;
  readonly version: 1;
  /** The workspace clock when the snapshot was taken, milliseconds. Informational. */
  readonly takenAtMs: number;
  /** The sequence the next registered block gets. */
  readonly nextSequence: number;
  readonly blocks: readonly ContextWorkspaceSnapshotBlockV1[];
}

export interface ContextWorkspaceSnapshotBlockV1 {
  readonly sequence: number;
  readonly blockName: string;
  readonly source: string;
  readonly focusedOn: readonly FocusedDomain[];
  readonly urgency: Urgency;
  readonly blockContent: BlockContent;
  readonly compactBlock: BlockContent;
  readonly abstractBlock: BlockContent;
  readonly replaceFadeFactor: number;
  readonly timeFadeFactor: number;
  readonly activateFactor: number;
  readonly activationScore: number;
  readonly touchedAtMs: number;
}

/** One block's state, as the workspace keeps it. */
export interface SnapshotEntry {
  readonly block: ContextBlock;
  readonly sequence: number;
  readonly score: number;
  readonly touchedAtMs: number;
}

export function writeSnapshotV1(options: {
  readonly entries: Iterable<SnapshotEntry>;
  readonly takenAtMs: number;
  readonly nextSequence: number;
}): ContextWorkspaceSnapshotV1 {
  const blocks = [...options.entries]
    .sort((left, right) => left.sequence - right.sequence)
    .map(({ block, sequence, score, touchedAtMs }) => ({
      sequence,
      blockName: block.blockName,
      source: block.source,
      focusedOn: [...block.focusedOn],
      urgency: block.urgency,
      blockContent: { content: block.blockContent.content, urgency: block.blockContent.urgency },
      compactBlock: { content: block.compactBlock.content, urgency: block.compactBlock.urgency },
      abstractBlock: { content: block.abstractBlock.content, urgency: block.abstractBlock.urgency },
      replaceFadeFactor: block.replaceFadeFactor,
      timeFadeFactor: block.timeFadeFactor,
      activateFactor: block.activateFactor,
      activationScore: score,
      touchedAtMs,
    }));
  return { format: CONTEXT_WORKSPACE_SNAPSHOT_FORMAT, version: 1, takenAtMs: options.takenAtMs, nextSequence: options.nextSequence, blocks };
}

/**
 * Reads a snapshot (typically `JSON.parse` output). Throws
 * `ContextWorkspaceInputError` naming the path of the first bad value
 * (`blocks[2].focusedOn[0]`), including a domain the workspace does not know.
 */
export function readSnapshotV1(
  value: unknown,
  options: { readonly known: ReadonlySet<FocusedDomain> },
): { readonly nextSequence: number; readonly entries: readonly SnapshotEntry[] } {
  const snapshot = requireRecord(value, 'snapshot');
  if (snapshot.format !== CONTEXT_WORKSPACE_SNAPSHOT_FORMAT || snapshot.version !== 1) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_UNSUPPORTED_SNAPSHOT',
      field: 'snapshot.version',
      message: `snapshot.version must be 1 with format "${CONTEXT_WORKSPACE_SNAPSHOT_FORMAT}", got version ${describe(snapshot.version)} with format ${describe(snapshot.format)}`,
    });
  }
  requireNumberInRange(snapshot.takenAtMs, { field: 'takenAtMs', min: -Number.MAX_VALUE, max: Number.MAX_VALUE });
  const nextSequence = requireInteger(snapshot.nextSequence, { field: 'nextSequence', min: 0 });
  const seen = new Set<number>();
  const entries = requireArray(snapshot.blocks, 'blocks').map((item, index) => {
    const entry = readBlock(item, { known: options.known, field: `blocks[${index}]` });
    if (seen.has(entry.sequence) || entry.sequence >= nextSequence) {
      throw new ContextWorkspaceInputError({
        code: 'WORKSPACE_INVALID_NUMBER',
        field: `blocks[${index}].sequence`,
        message: `blocks[${index}].sequence ${entry.sequence} must be unique and below nextSequence ${nextSequence}`,
      });
    }
    seen.add(entry.sequence);
    return entry;
  });
  return { nextSequence, entries };
}

function readBlock(value: unknown, options: { known: ReadonlySet<FocusedDomain>; field: string }): SnapshotEntry {
  const { field } = options;
  const record = requireRecord(value, field);
  const sequence = requireInteger(record.sequence, { field: `${field}.sequence`, min: 0 });
  const focusedOn = requireArray(record.focusedOn, `${field}.focusedOn`).map((domain, index) =>
    parseDomain(domain, { known: options.known, field: `${field}.focusedOn[${index}]` }),
  );
  let block: ContextBlock;
  try {
    block = contextBlock({
      blockName: record.blockName as string,
      source: record.source as string,
      focusedOn,
      urgency: parseUrgency(record.urgency, `${field}.urgency`),
      blockContent: readContent(record.blockContent, `${field}.blockContent`),
      compactBlock: readContent(record.compactBlock, `${field}.compactBlock`),
      abstractBlock: readContent(record.abstractBlock, `${field}.abstractBlock`),
      replaceFadeFactor: record.replaceFadeFactor as number,
      timeFadeFactor: record.timeFadeFactor as number,
      activateFactor: record.activateFactor as number,
    });
  } catch (error) {
    if (!ContextWorkspaceInputError.isInstance(error) || error.field.startsWith(`${field}.`)) throw error;
    throw new ContextWorkspaceInputError({
      code: error.code,
      field: `${field}.${error.field}`,
      message: `${field}.${error.message}`,
      cause: error,
    });
  }
  const score = requireNumberInRange(record.activationScore, { field: `${field}.activationScore`, min: 0, max: MAX_ACTIVATION_SCORE });
  const touchedAtMs = requireNumberInRange(record.touchedAtMs, { field: `${field}.touchedAtMs`, min: -Number.MAX_VALUE, max: Number.MAX_VALUE });
  return { block, sequence, score, touchedAtMs };
}

/** Version 1 spells out every projection: content and urgency, no defaults. */
function readContent(value: unknown, field: string): BlockContent {
  const record = requireRecord(value, field);
  return {
    content: requireString(record.content, `${field}.content`),
    urgency: parseUrgency(record.urgency, `${field}.urgency`),
  };
}
