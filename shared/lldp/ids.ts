/** The Chassis ID and Port ID TLVs: a subtype, then an ID read according to it (802.1AB-2016 8.5.2, 8.5.3). */
import type { ByteReader } from '../bytes/reader.js';
import { CHASSIS_ID_SUBTYPES, PORT_ID_SUBTYPES } from './names.js';
import { colonHex, formatAddress, identifierText } from './text.js';
import type { LldpId } from './types.js';

/** Reads the whole value of a Chassis ID or Port ID TLV; a reserved subtype or bad length is malformed. */
export function readId(r: ByteReader, length: number, which: 'Chassis ID' | 'Port ID', problems: string[]): LldpId {
  if (length < 2 || length > 256) r.fail(`has ${length} bytes; 802.1AB allows 2 to 256`);
  const subtype = r.u8('subtype');
  const subtypeName = (which === 'Chassis ID' ? CHASSIS_ID_SUBTYPES : PORT_ID_SUBTYPES)[subtype];
  if (subtypeName === undefined) r.fail(`subtype ${subtype} is reserved`);
  const bytes = r.bytes(length - 1, 'ID');
  const note = (what: string): void => void problems.push(`${which} (${subtypeName}) ${what}`);

  switch (subtypeName) {
    case 'mac':
      if (bytes.length !== 6) note(`is ${bytes.length} bytes, not a 6-byte MAC address`);
      return { subtype, subtypeName, value: colonHex(bytes) };
    case 'networkAddress': {
      const address = formatAddress(bytes[0]!, bytes.subarray(1));
      if (address !== undefined) return { subtype, subtypeName, value: address };
      note(`is not an address of a known family (family ${bytes[0]}, ${bytes.length - 1} bytes); shown as hex`);
      return { subtype, subtypeName, value: colonHex(bytes) };
    }
    default: {
      const text = identifierText(bytes);
      if (text !== undefined) return { subtype, subtypeName, value: text };
      // An agent circuit ID (RFC 3046) is opaque bytes by definition; the other subtypes promise text.
      if (subtypeName !== 'agentCircuitId') note('is not printable text; shown as hex');
      return { subtype, subtypeName, value: colonHex(bytes) };
    }
  }
}
