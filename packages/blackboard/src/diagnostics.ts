/**
 * What assembly, import and binding report instead of failing: dropped,
 * trimmed or unplaced material. Codes are stable; messages are for people.
 */
export interface BlackboardDiagnostic {
  readonly code: BlackboardDiagnosticCode;
  readonly message: string;
  /** The tag, segment id, preset identifier or field concerned. */
  readonly subject: string;
}

export type BlackboardDiagnosticCode =
  /** A policy trimmed a pattern's entries. */
  | 'BLACKBOARD_POLICY_TRIMMED'
  /** Not even one line fitted a `tail_tokens_N` budget; the newest line was cut inside. */
  | 'BLACKBOARD_POLICY_LINE_CUT'
  /** A segment's patterns matched no entry; the segment was left out. */
  | 'BLACKBOARD_SEGMENT_EMPTY'
  /** Isolation hid entries the contract would otherwise show. */
  | 'BLACKBOARD_ISOLATION_HIDDEN'
  /** A `context_order` insert names a tag outside the skill's `inputTags`; skipped. */
  | 'BLACKBOARD_ORDER_OUTSIDE_CONTRACT'
  /** A segment pattern the `context_order` table does not place; appended after the table. */
  | 'BLACKBOARD_ORDER_PATTERN_UNLISTED'
  /** Play binding left a tag out of the play projection (design-only, program, opening, orchestration). */
  | 'BLACKBOARD_PLAY_TAG_EXCLUDED'
  /** A preset marker this runtime does not know; nothing was emitted for it. */
  | 'PRESET_MARKER_UNKNOWN'
  /** A known card marker (charDescription, scenario, ...) with no segment bound to it. */
  | 'PRESET_MARKER_UNFILLED'
  /** A `prompt_order` entry names no prompt of the preset. */
  | 'PRESET_ORDER_UNKNOWN_IDENTIFIER'
  /** A prompt uses in-chat (depth) injection, which is placed as a relative entry instead. */
  | 'PRESET_INJECTION_UNSUPPORTED'
  /** A bag had content and the preset has no place for it; appended at its default position. */
  | 'PRESET_BAG_UNPLACED';
