/** The most cards a row holds on a wide screen; narrower screens stack them. */
const PER_ROW = 3;

/**
 * How many cards share card `index`'s row when `count` cards fill rows of at most PER_ROW as evenly
 * as possible: 4 → 2 + 2, 5 → 3 + 2, 7 → 3 + 2 + 2. No card sits alone beside empty space.
 */
export function rowSizeOf(count: number, index: number): number {
  const rows = Math.ceil(count / PER_ROW);
  const small = Math.floor(count / rows);
  const bigRows = count % rows; // the first rows hold one more
  return index < bigRows * (small + 1) ? small + 1 : small;
}
