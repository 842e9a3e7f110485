/** Picks an index with probability proportional to its weight; `random` returns [0, 1). */
export function weightedPick(weights: readonly number[], random: () => number): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total <= 0) return Math.floor(random() * weights.length);
  let point = random() * total;
  for (let index = 0; index < weights.length; index++) {
    point -= weights[index]!;
    if (point < 0) return index;
  }
  return weights.length - 1;
}
