/**
 * Reads journald's native protocol back into fields, as journald does (for tests: fleet only
 * writes it). Throws on anything journald would refuse, so a malformed entry fails the test.
 */
export type DecodedEntry = Array<[name: string, value: Buffer]>;

export function decodeJournalEntry(entry: Buffer): DecodedEntry {
  const fields: DecodedEntry = [];
  let pos = 0;
  while (pos < entry.length) {
    const newline = entry.indexOf(0x0a, pos);
    if (newline === -1) throw new Error(`field at ${pos} has no end`);
    const line = entry.subarray(pos, newline);
    const eq = line.indexOf(0x3d);
    if (eq !== -1) {
      fields.push([checkedName(line.subarray(0, eq).toString()), line.subarray(eq + 1)]);
      pos = newline + 1;
      continue;
    }
    const name = checkedName(line.toString());
    const length = Number(entry.readBigUInt64LE(newline + 1));
    const start = newline + 9;
    if (entry[start + length] !== 0x0a) throw new Error(`${name}: the value is not followed by a newline`);
    fields.push([name, entry.subarray(start, start + length)]);
    pos = start + length + 1;
  }
  return fields;
}

/** The fields as text, one value per name (the last). */
export function fieldMap(entry: Buffer): Record<string, string> {
  return Object.fromEntries(decodeJournalEntry(entry).map(([n, v]) => [n, v.toString()]));
}

function checkedName(name: string): string {
  if (!/^[A-Z0-9][A-Z0-9_]{0,63}$/.test(name) || /^[0-9]/.test(name)) throw new Error(`journald refuses the field name ${JSON.stringify(name)}`);
  return name;
}
