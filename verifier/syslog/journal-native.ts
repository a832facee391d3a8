/**
 * journald's native protocol (systemd's "Native Journal Protocol" document): one datagram per
 * entry, each field `NAME=value\n`, or, for a value holding a newline, `NAME\n`, the value's length
 * as a little-endian 64-bit integer, the value and `\n`. Values are bytes: journald stores them as
 * sent, UTF-8 or not. Names are fleet's own constants (uppercase, digits, `_`, not leading `_`).
 */
export type JournalFields = ReadonlyArray<readonly [name: string, value: string | Uint8Array]>;

export function encodeJournalEntry(fields: JournalFields): Buffer {
  const parts: Buffer[] = [];
  // Plain text fields are gathered into one string: one Buffer for them all, not one each.
  let text = '';
  for (const [name, value] of fields) {
    if (typeof value === 'string' && !value.includes('\n')) {
      text += `${name}=${value}\n`;
      continue;
    }
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (bytes.includes(0x0a)) {
      const length = Buffer.alloc(8);
      length.writeBigUInt64LE(BigInt(bytes.length));
      parts.push(Buffer.from(`${text}${name}\n`), length, bytes, NEWLINE);
    } else {
      parts.push(Buffer.from(`${text}${name}=`), bytes, NEWLINE);
    }
    text = '';
  }
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}

const NEWLINE = Buffer.from('\n');
