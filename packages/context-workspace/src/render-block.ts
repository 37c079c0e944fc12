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

/** Everything after the tag name up to the closing tag: attributes, `>`, escaped text. Cached per block. */
const tails = new WeakMap<ContextBlock, Record<Projection, string>>();

function elementTail(block: ContextBlock, projection: Projection): string {
  let cached = tails.get(block);
  if (cached === undefined) {
    const source = escapeXmlAttribute(block.source);
    const tail = (content: BlockContent) =>
      ` source="${source}" urgency="${content.urgency.toLowerCase()}">${escapeXmlText(content.content)}`;
    cached = { full: tail(block.blockContent), compact: tail(block.compactBlock), abstract: tail(block.abstractBlock) };
    tails.set(block, cached);
  }
  return cached[projection];
}

/** One block as its own element, or under another tag (`snapshot`, `history_snapshot`). */
export function renderBlockElement(block: ContextBlock, projection: Projection, tag: string = block.blockName): string {
  return `<${tag}${elementTail(block, projection)}</${tag}>`;
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
  members.forEach((member, index) => {
    lines.push(`  ${renderBlockElement(member.block, member.projection, index === snapshotIndex ? 'snapshot' : 'history_snapshot')}`);
  });
  lines.push(`</${name}>`);
  return lines.join('\n');
}
