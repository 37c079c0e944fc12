import type { TokenEstimator } from './token-estimator.js';

/**
 * The longest prefix of `text` that, with a truncation note, costs at most
 * `maxTokens`; cut at a line boundary when one is near, never inside a
 * surrogate pair. Undefined when not even the note fits.
 */
export function truncateToTokens(text: string, maxTokens: number, estimator: TokenEstimator): string | undefined {
  const note = (shown: number) => `\n[truncated: ${shown} of ${text.length} characters shown]`;
  if (estimator.countText(note(0)) > maxTokens) return undefined;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (estimator.countText(text.slice(0, middle) + note(middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  let cut = low;
  const lineBreak = text.lastIndexOf('\n', cut);
  if (lineBreak > cut * 0.8) cut = lineBreak;
  const code = text.charCodeAt(cut - 1);
  if (cut > 0 && code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + note(cut);
}
