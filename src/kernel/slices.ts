/** Consecutive slices of `items`, `size` long (the last one shorter): commands, filters and writes of bounded size. */
export function* slices<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
