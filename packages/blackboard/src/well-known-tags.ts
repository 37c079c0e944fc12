/**
 * Tags the runtime gives meaning to (seed 004). Assembly takes them through
 * `WellKnownTags` so an instance can rename them; these are the defaults.
 */
export interface WellKnownTags {
  /** Dialogue history: each entry is one turn; a `user` author makes a user turn, any other an assistant turn. */
  readonly history: string;
  /** The user's current input: the `turn` chunk, sent as the current user message. */
  readonly turn: string;
  /** The final-draft summary fed to the next worker; rendered in the tail. */
  readonly finalSummary: string;
  /** Accepted creation content, one tag (or sub-tag per unit); rendered as a read-only recap. */
  readonly acceptedContent: string;
  /** The projection order table written at play binding. */
  readonly contextOrder: string;
  /** The worker set (orchestration). */
  readonly workerSet: string;
  /** Openings: `设计.开场白#1`, ... (pattern). */
  readonly openings: string;
}

export const DEFAULT_WELL_KNOWN_TAGS: WellKnownTags = Object.freeze({
  history: '对话.历史',
  turn: '用户.最新输入',
  finalSummary: '上下文.定稿摘要',
  acceptedContent: '创作.已验收内容',
  contextOrder: '设计.上下文投影排序',
  workerSet: '设计.worker集',
  openings: '设计.开场白#*',
});
