import { CACHE_PRICING, ConservativeTokenEstimator, type CanonicalMessage } from '@strata/context';

/** Stored-output reference ids as the stores make them (`out_` and 26 base-32 characters). */
const STORE_REF = /out_[0-9a-z]{26}/g;

/**
 * A request's text with each stored-output reference renamed by its order of
 * first appearance across `names` (`ref#1`, `ref#2`, ...): reference ids are
 * random, so two runs that send the same bytes but for them compare equal.
 * Pass one `names` map for every request of a run.
 */
export function renumberRefs(text: string, names: Map<string, string> = new Map(), pattern: RegExp = STORE_REF): string {
  return text.replace(new RegExp(pattern.source, 'g'), (ref) => {
    let name = names.get(ref);
    if (name === undefined) names.set(ref, (name = `ref#${names.size + 1}`));
    return name;
  });
}

const estimator = new ConservativeTokenEstimator({ family: 'unknown' });

/**
 * The input cost of a run's requests as providers bill prompt caches
 * (`CACHE_PRICING`): each request's prefix of whole messages equal to the
 * previous request's at the cached price, the rest at the new price, in
 * conservative tokens. Two runs with the same requests cost the same; one
 * whose prefix another run broke costs more.
 */
export function cachePricedCost(requests: readonly (readonly CanonicalMessage[])[]): number {
  let cost = 0;
  let previous: readonly string[] = [];
  for (const request of requests) {
    const texts = request.map((message) => JSON.stringify(message));
    let prefix = 0;
    while (prefix < texts.length && prefix < previous.length && texts[prefix] === previous[prefix]) prefix += 1;
    for (const [index, message] of request.entries()) cost += estimator.countMessage(message) * (index < prefix ? CACHE_PRICING.cachedToken : CACHE_PRICING.newToken);
    previous = texts;
  }
  return Math.round(cost);
}
