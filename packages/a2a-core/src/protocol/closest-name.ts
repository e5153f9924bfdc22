/**
 * The name of `names` a mistyped `input` most likely meant: the one equal to it but for case, else the
 * nearest by edit distance (ignoring case) within a small bound, first in `names`' order on a tie.
 * Undefined when nothing is close: a suggestion must help, never guess wildly.
 */
export function closestName(input: string, names: readonly string[]): string | undefined {
  if (input.length === 0 || input.length > 64) return undefined;
  const wanted = input.toLowerCase();
  const sameButCase = names.find((name) => name.toLowerCase() === wanted);
  if (sameButCase !== undefined) return sameButCase;
  const bound = Math.max(2, Math.floor(wanted.length / 4));
  let best: string | undefined;
  let bestDistance = bound + 1;
  for (const name of names) {
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
