import type { Projection } from './activation.js';
import type { BlockContent, ContextBlock } from './context-block.js';
import { highestUrgency, type Urgency } from './urgency.js';

/**
 * XML rendering of blocks. A block renders as
 * `<blockName source="…" urgency="normal">text</blockName>`; same-source
 * blocks aggregate into one element whose children are one `<snapshot>` and
 * any number of `<history_snapshot>` elements with the same attributes.
 * Text and attribute values are escaped, so content never forges a tag.
 */

export interface RenderMember {
  readonly block: ContextBlock;
  readonly projection: Projection;
}

export function escapeXmlText(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeXmlAttribute(text: string): string {
  if (!/[&<>"]/.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function projectionContent(block: ContextBlock, projection: Projection): BlockContent {
  if (projection === 'full') return block.blockContent;
  if (projection === 'compact') return block.compactBlock;
  return block.abstractBlock;
}

/**
 * Rendered strings of one block, built on first use; blocks are immutable, so they never go stale.
 * Every string here is built with `join`, which makes a flat string: one built with `+` or a
 * template is a tree of its pieces, which every later join of a resolve's text walks again
 * (joining 6,000 such elements took ten times as long as joining flat ones).
 */
interface RenderCache {
  readonly tails: Record<Projection, string>;
  readonly elements: Partial<Record<Projection, string>>;
  readonly snapshotLines: Partial<Record<Projection, string>>;
  readonly historyLines: Partial<Record<Projection, string>>;
}

const caches = new WeakMap<ContextBlock, RenderCache>();

function cacheOf(block: ContextBlock): RenderCache {
  let cache = caches.get(block);
  if (cache === undefined) {
    const source = escapeXmlAttribute(block.source);
    // Everything after the tag name up to the closing tag: attributes, `>`, escaped text.
    const tail = (content: BlockContent) =>
      [' source="', source, '" urgency="', content.urgency.toLowerCase(), '">', escapeXmlText(content.content)].join('');
    cache = {
      tails: { full: tail(block.blockContent), compact: tail(block.compactBlock), abstract: tail(block.abstractBlock) },
      elements: {},
      snapshotLines: {},
      historyLines: {},
    };
    caches.set(block, cache);
  }
  return cache;
}

function element(tag: string, tail: string): string {
  return ['<', tag, tail, '</', tag, '>'].join('');
}

/** One block as its own element, or under another tag (`snapshot`, `history_snapshot`). */
export function renderBlockElement(block: ContextBlock, projection: Projection, tag: string = block.blockName): string {
  const cache = cacheOf(block);
  if (tag !== block.blockName) return element(tag, cache.tails[projection]);
  return (cache.elements[projection] ??= element(tag, cache.tails[projection]));
}

/** A member's indented line inside an aggregate. */
function memberLine(block: ContextBlock, projection: Projection, snapshot: boolean): string {
  const cache = cacheOf(block);
  const lines = snapshot ? cache.snapshotLines : cache.historyLines;
  const tag = snapshot ? 'snapshot' : 'history_snapshot';
  return (lines[projection] ??= ['  ', element(tag, cache.tails[projection])].join(''));
}

/** The urgency of an aggregate: the highest among the rendered projections, not the full contents. */
export function aggregateUrgency(members: readonly RenderMember[]): Urgency {
  return highestUrgency(members.map((member) => projectionContent(member.block, member.projection).urgency));
}

/**
 * Same-source members in rank order as one element; the member at
 * `snapshotIndex` is the `<snapshot>`, the others `<history_snapshot>`.
 */
export function renderAggregate(options: { readonly members: readonly RenderMember[]; readonly snapshotIndex: number }): string {
  const { members, snapshotIndex } = options;
  const first = members[0];
  if (first === undefined) throw new RangeError('an aggregate needs at least one member');
  const name = first.block.blockName;
  const lines = [`<${name} source="${escapeXmlAttribute(first.block.source)}" urgency="${aggregateUrgency(members).toLowerCase()}">`];
  members.forEach((member, index) => lines.push(memberLine(member.block, member.projection, index === snapshotIndex)));
  lines.push(`</${name}>`);
  return lines.join('\n');
}
