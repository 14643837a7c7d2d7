// helper.DefaultNormalizeScore: scales scores so the highest becomes `maxPriority` (integer
// division, as in Go), optionally reversed so that the lowest raw score wins.
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: Float64Array): void {
  let max = 0;
  for (let index = 0; index < scores.length; index++) if (scores[index]! > max) max = scores[index]!;
  if (max === 0) {
    if (reverse) scores.fill(maxPriority);
    return;
  }
  for (let index = 0; index < scores.length; index++) {
    let score = Math.trunc((maxPriority * scores[index]!) / max);
    if (reverse) score = maxPriority - score;
    scores[index] = score;
  }
}
