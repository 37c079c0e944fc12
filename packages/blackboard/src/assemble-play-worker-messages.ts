import type { BlackboardDiagnostic } from './diagnostics.js';
import { DEFAULT_PRESET, PRESET_BAG_ORDER, type CardMarker, type Preset, type PresetBag, type PresetSlot } from './preset.js';
import type { BagBlock, WorkerContextBags } from './worker-context-bags.js';
import type { WorkerMessage } from './worker-message.js';

export interface AssemblePlayWorkerMessagesOptions {
  readonly bags: WorkerContextBags;
  /** Default: `DEFAULT_PRESET` (bags only). */
  readonly preset?: Preset;
  /** Segment id per card marker: that segment's block moves from its bag to the marker's place. */
  readonly cardSegments?: Readonly<Partial<Record<CardMarker, string>>>;
}

export interface PlayWorkerMessages {
  readonly messages: readonly WorkerMessage[];
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/**
 * Walks the preset's slots: prompt entries as their role, `before` and
 * `after` as one system message each, the history as its turns, the current
 * turn as one user message, `postTurn` as one system message. Empty bags and
 * prompts send nothing. A bag with content the preset has no slot for goes
 * before the next bag present (else last), reported.
 */
export function assemblePlayWorkerMessages(options: AssemblePlayWorkerMessagesOptions): PlayWorkerMessages {
  const preset = options.preset ?? DEFAULT_PRESET;
  const diagnostics: BlackboardDiagnostic[] = [];
  const claimed = new Map<CardMarker, BagBlock[]>();
  const claimedIds = new Set<string>();
  for (const [marker, segmentId] of Object.entries(options.cardSegments ?? {}) as [CardMarker, string][]) {
    if (!preset.slots.some((slot) => slot.kind === 'card' && slot.identifier === marker)) continue;
    claimed.set(marker, [...options.bags.before, ...options.bags.after].filter((block) => block.id === segmentId));
    claimedIds.add(segmentId);
  }
  const bags = {
    ...options.bags,
    before: options.bags.before.filter((block) => !claimedIds.has(block.id)),
    after: options.bags.after.filter((block) => !claimedIds.has(block.id)),
  };

  const slots = placeMissingBags(preset.slots, bags, diagnostics);
  const messages: WorkerMessage[] = [];
  for (const slot of slots) {
    if (slot.kind === 'prompt') {
      if (slot.content.trim().length > 0) messages.push({ role: slot.role, content: slot.content });
    } else if (slot.kind === 'card') {
      const blocks = claimed.get(slot.identifier) ?? [];
      if (blocks.length > 0) messages.push({ role: 'system', content: blocks.map((block) => block.text).join('\n\n') });
      else diagnostics.push({ code: 'PRESET_MARKER_UNFILLED', subject: slot.identifier, message: `preset ${preset.id}: card marker ${slot.identifier} has no segment bound to it; nothing sent there` });
    } else {
      messages.push(...bagMessages(slot.bag, bags));
    }
  }
  return { messages, diagnostics };
}

function bagMessages(bag: PresetBag, bags: WorkerContextBags): WorkerMessage[] {
  const joined = (texts: readonly string[]) => texts.join('\n\n');
  switch (bag) {
    case 'before':
    case 'after': {
      const blocks = bags[bag];
      return blocks.length === 0 ? [] : [{ role: 'system', content: joined(blocks.map((block) => block.text)) }];
    }
    case 'history':
      return bags.history.map((turn) => ({ role: turn.role, content: turn.content }));
    case 'turn':
      return bags.turn.length === 0 ? [] : [{ role: 'user', content: joined(bags.turn) }];
    case 'postTurn':
      return bags.postTurn.length === 0 ? [] : [{ role: 'system', content: joined(bags.postTurn) }];
  }
}

function bagHasContent(bag: PresetBag, bags: WorkerContextBags): boolean {
  return bags[bag].length > 0;
}

function placeMissingBags(slots: readonly PresetSlot[], bags: WorkerContextBags, diagnostics: BlackboardDiagnostic[]): PresetSlot[] {
  const result = [...slots];
  const present = (bag: PresetBag) => result.some((slot) => slot.kind === 'bag' && slot.bag === bag);
  PRESET_BAG_ORDER.forEach((bag, index) => {
    if (present(bag) || !bagHasContent(bag, bags)) return;
    const following = PRESET_BAG_ORDER.slice(index + 1).find(present);
    const at = following === undefined ? result.length : result.findIndex((slot) => slot.kind === 'bag' && slot.bag === following);
    result.splice(at, 0, { kind: 'bag', identifier: bag, bag });
    diagnostics.push({
      code: 'PRESET_BAG_UNPLACED',
      subject: bag,
      message: `the preset has no place for the ${bag} bag; placed ${following === undefined ? 'last' : `before ${following}`}`,
    });
  });
  return result;
}
