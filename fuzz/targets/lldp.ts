import { join } from 'node:path';
import { jsonReport, textReport } from '../../cli/commands/lldp.js';
import { readCaptureFile } from '../../shared/lldp/capture.js';
import { parseLldpdu, parseLldpFrame } from '../../shared/lldp/parse.js';
import type { LldpFrame } from '../../shared/lldp/types.js';
import { OracleViolation, unlessParseError, type Target } from '../engine/target.js';
import { filesIn, TESTDATA } from './testdata.js';

/** What `fleet lldp` prints must come out of any frame that decodes. */
function printable(f: LldpFrame): void {
  if (!f.chassisId.value.length || !f.portId.value.length || !Number.isInteger(f.ttl))
    throw new OracleViolation('a decoded frame lacks its chassis, port or TTL');
  JSON.stringify(jsonReport([{ index: 1, frame: f }]));
  textReport([{ index: 1, frame: f }]);
}

function decode(parse: (b: Uint8Array) => LldpFrame, bytes: Uint8Array): void {
  const f = unlessParseError(() => parse(bytes));
  if (f) printable(f);
}

/** A capture file (pcap or a raw frame) to every frame in it, each decoded and printed; and its LLDPDU alone. */
const target: Target = {
  name: 'lldp',
  kind: 'bytes',
  seedSources: ['lldp/lldpd/*.pcap, lldp.*.raw'],
  seeds: () => filesIn(join(TESTDATA, 'lldp/lldpd'), (n) => n.endsWith('.pcap') || n.endsWith('.raw')),
  dictionary: [
    Uint8Array.of(0x88, 0xcc),
    Uint8Array.of(0x81, 0x00),
    Uint8Array.of(0x88, 0xa8),
    Uint8Array.of(0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e),
    Uint8Array.of(0x00, 0x12, 0x0f),
    Uint8Array.of(0x00, 0x80, 0xc2),
    Uint8Array.of(0x00, 0x12, 0xbb),
    Uint8Array.of(0xd4, 0xc3, 0xb2, 0xa1),
    Uint8Array.of(0xa1, 0xb2, 0x3c, 0x4d),
    Uint8Array.of(0x02, 0x07, 0x04),
    Uint8Array.of(0x04, 0x07, 0x03),
    Uint8Array.of(0x06, 0x02, 0x00, 0x78),
    Uint8Array.of(0x00, 0x00),
    Uint8Array.of(0xfe, 0x09),
    Uint8Array.of(0x10, 0x0c, 0x05, 0x01),
  ],
  maxLen: 8 * 1024,
  sources: ['shared/lldp/', 'shared/bytes/', 'cli/commands/lldp.ts'],
  oracle:
    'frames or a ParseError (lldp-capture-invalid/-unsupported, lldp-malformed, lldp-not-lldp); every decoded frame has its mandatory TLVs and prints as JSON and text',
  run(input) {
    for (const f of unlessParseError(() => readCaptureFile(input)) ?? []) {
      decode(parseLldpFrame, f);
      decode(parseLldpdu, f.subarray(14));
    }
  },
};

export default target;
