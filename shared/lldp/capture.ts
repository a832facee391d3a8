/**
 * Frames from a capture file: classic pcap (either byte order, microsecond or nanosecond
 * timestamps, link type Ethernet), or else a single raw Ethernet frame as `tcpdump -w`-less tools
 * and lldpd's fuzz seeds (`lldp.*.raw`) store it.
 */
import { ByteReader } from '../bytes/reader.js';
import { ParseError } from '../errors.js';
import { ETHERTYPE_LLDP, VLAN_TAG_TYPES } from './parse.js';

export const CAPTURE_INVALID = 'lldp-capture-invalid';
export const CAPTURE_UNSUPPORTED = 'lldp-capture-unsupported';

const PCAP_MAGIC_US = 0xa1b2c3d4;
const PCAP_MAGIC_NS = 0xa1b23c4d;
const PCAPNG_MAGIC = 0x0a0d0d0a;
const LINKTYPE_ETHERNET = 1;

export function readCaptureFile(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length === 0) throw new ParseError(CAPTURE_INVALID, 'capture: the file is empty');
  if (bytes.length >= 4) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const be = view.getUint32(0);
    const le = view.getUint32(0, true);
    if (be === PCAP_MAGIC_US || be === PCAP_MAGIC_NS) return readPcap(bytes, false);
    if (le === PCAP_MAGIC_US || le === PCAP_MAGIC_NS) return readPcap(bytes, true);
    if (be === PCAPNG_MAGIC) {
      throw new ParseError(CAPTURE_UNSUPPORTED, 'capture: pcapng is not supported; save it as pcap (editcap -F pcap IN OUT)');
    }
  }
  if (!looksLikeLldpFrame(bytes)) {
    throw new ParseError(CAPTURE_INVALID, 'capture: neither a pcap file nor a raw Ethernet frame with ethertype 0x88cc');
  }
  return [bytes];
}

function readPcap(bytes: Uint8Array, littleEndian: boolean): Uint8Array[] {
  const r = new ByteReader(bytes, CAPTURE_INVALID, 'pcap');
  const u16 = (field: string): number => (littleEndian ? r.u16le(field) : r.u16(field));
  const u32 = (field: string): number => (littleEndian ? r.u32le(field) : r.u32(field));
  u32('magic');
  const major = u16('major version');
  const minor = u16('minor version');
  if (major !== 2) r.fail(`version ${major}.${minor} is not 2.x`, 4);
  r.bytes(8, 'time zone and accuracy');
  u32('snapshot length');
  // The low 16 bits are the link type; the high ones may carry FCS information.
  const linktype = u32('link type') & 0xffff;
  if (linktype !== LINKTYPE_ETHERNET) {
    throw new ParseError(CAPTURE_UNSUPPORTED, `pcap: link type ${linktype} is not Ethernet (1); capture on an Ethernet interface`, 20);
  }
  const frames: Uint8Array[] = [];
  while (r.remaining > 0) {
    const at = r.offset;
    if (r.remaining < 16) r.fail(`record ${frames.length + 1} header is cut off (${r.remaining} of 16 bytes)`);
    r.bytes(8, 'timestamp');
    const captured = u32('captured length');
    u32('original length');
    if (captured > r.remaining) r.fail(`record ${frames.length + 1} claims ${captured} bytes, ${r.remaining} left`, at);
    frames.push(r.bytes(captured, 'frame'));
  }
  return frames;
}

/** Destination, source, tags, then ethertype 0x88cc: what a raw LLDP frame file starts with. */
function looksLikeLldpFrame(bytes: Uint8Array): boolean {
  let at = 12;
  while (at + 2 <= bytes.length) {
    const type = (bytes[at]! << 8) | bytes[at + 1]!;
    if (type === ETHERTYPE_LLDP) return true;
    if (!VLAN_TAG_TYPES.has(type)) return false;
    at += 4;
  }
  return false;
}
