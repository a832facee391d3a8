/** A correct LLDP Ethernet frame built from a few fields, for tests and the demo. */
import { isIPv4 } from 'node:net';
import { ByteWriter } from '../../shared/bytes/writer.js';

export interface LldpFrameOptions {
  /** Ethernet source; defaults to `chassisMac`. */
  srcMac?: string;
  /** Sent as a Chassis ID of subtype MAC (4). */
  chassisMac: string;
  /** Text, except a MAC for subtype 3 and an IPv4 address for subtype 4. */
  portId: string;
  /** 802.1AB Port ID subtype; default 5 (interface name). */
  portIdSubtype?: number;
  /** Seconds; default 120. */
  ttl?: number;
  portDescription?: string;
  systemName?: string;
  /** The port's VLAN, sent as an 802.1 Port VLAN ID TLV (the frame itself stays untagged). */
  vlan?: number;
}

const NEAREST_BRIDGE = '01:80:c2:00:00:0e';

export function buildLldpFrame(opts: LldpFrameOptions): Uint8Array {
  const portIdSubtype = opts.portIdSubtype ?? 5;
  const w = new ByteWriter();
  w.bytes(mac(NEAREST_BRIDGE))
    .bytes(mac(opts.srcMac ?? opts.chassisMac))
    .u16(0x88cc);
  tlv(w, 1, new Uint8Array([4, ...mac(opts.chassisMac)]));
  tlv(w, 2, new Uint8Array([portIdSubtype, ...portIdBytes(portIdSubtype, opts.portId)]));
  tlv(w, 3, new ByteWriter().u16(opts.ttl ?? 120).finish());
  if (opts.portDescription !== undefined) tlv(w, 4, text(opts.portDescription));
  if (opts.systemName !== undefined) tlv(w, 5, text(opts.systemName));
  if (opts.vlan !== undefined)
    tlv(
      w,
      127,
      new ByteWriter()
        .bytes(new Uint8Array([0x00, 0x80, 0xc2, 1]))
        .u16(opts.vlan)
        .finish(),
    );
  tlv(w, 0, new Uint8Array(0));
  return w.finish();
}

function tlv(w: ByteWriter, type: number, value: Uint8Array): void {
  if (value.length > 511) throw new RangeError(`TLV ${type} of ${value.length} bytes exceeds 511`);
  w.u16((type << 9) | value.length).bytes(value);
}

function mac(s: string): Uint8Array {
  if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(s)) throw new RangeError(`not a MAC address: ${s}`);
  return new Uint8Array(s.split(':').map((h) => parseInt(h, 16)));
}

function text(s: string): Uint8Array {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length < 1 || bytes.length > 255) throw new RangeError(`LLDP strings hold 1-255 bytes, not ${bytes.length}`);
  return bytes;
}

function portIdBytes(subtype: number, portId: string): Uint8Array {
  if (subtype === 3) return mac(portId);
  if (subtype === 4) {
    if (!isIPv4(portId)) throw new RangeError(`buildLldpFrame writes network-address Port IDs as IPv4 only, not ${portId}`);
    return new Uint8Array([1, ...portId.split('.').map(Number)]);
  }
  return text(portId);
}
