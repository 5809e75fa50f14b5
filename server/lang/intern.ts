// One string per distinct text in a table: a model keeps the same few names, addresses, keys and hover texts
// thousands of times over, each read or built as a copy of its own. Tables are bounded: when one is full it is
// cleared and fills again (an interned string stays valid; only later copies stop being shared).

/** `s`, or the equal string `table` already holds (then kept); `table` is cleared when it reaches `max` entries. */
export function intern(table: Map<string, string>, s: string, max: number): string {
  const known = table.get(s);
  if (known !== undefined) return known;
  if (table.size >= max) table.clear();
  table.set(s, s);
  return s;
}
