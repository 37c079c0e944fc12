/** Merges two arrays, each sorted by `compare`, into a new sorted array; on a tie the left element comes first. */
export function mergeSorted<Item>(left: readonly Item[], right: readonly Item[], compare: (left: Item, right: Item) => number): Item[] {
  const merged: Item[] = [];
  let leftIndex = 0;
  let rightIndex = 0;
  while (leftIndex < left.length && rightIndex < right.length) {
    merged.push(compare(left[leftIndex]!, right[rightIndex]!) <= 0 ? left[leftIndex++]! : right[rightIndex++]!);
  }
  while (leftIndex < left.length) merged.push(left[leftIndex++]!);
  while (rightIndex < right.length) merged.push(right[rightIndex++]!);
  return merged;
}
