/** The id of the `index`th generated vector: a UUID, as the vector stores want. */
export const vectorId = (index: number) => `00000000-0000-5000-8000-${String(index).padStart(12, '0')}`;

/**
 * Ids of the `k` vectors of `stored` (`count` of `dimension` floats, normalised) with the highest
 * cosine to `query`, by an exhaustive scan: the truth a vector index's recall is measured against.
 */
export function exactNearest(stored: Float32Array, count: number, dimension: number, query: Float32Array, k: number): Set<string> {
  const best: Array<{ index: number; score: number }> = [];
  for (let index = 0; index < count; index++) {
    let score = 0;
    for (let d = 0, offset = index * dimension; d < dimension; d++) score += stored[offset + d]! * query[d]!;
    if (best.length === k && score <= best[k - 1]!.score) continue;
    const at = best.findIndex((entry) => entry.score < score);
    best.splice(at < 0 ? best.length : at, 0, { index, score });
    if (best.length > k) best.pop();
  }
  return new Set(best.map((entry) => vectorId(entry.index)));
}
