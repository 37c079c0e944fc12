const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string holds no lone surrogate (as `String.prototype.isWellFormed`). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
