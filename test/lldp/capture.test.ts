/** readCaptureFile: classic pcap in both byte orders and timestamp resolutions, raw frames, and refusals. */
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../../shared/bytes/hex.js';
import { ParseError } from '../../shared/errors.js';
import { readCaptureFile } from '../../shared/lldp/capture.js';
import { CAPTURES, captureBytes, frameOf, pcap } from './fixtures.js';

function refusal(bytes: Uint8Array): ParseError {
  try {
    readCaptureFile(bytes);
  } catch (err) {
    if (err instanceof ParseError) return err;
    throw err;
  }
  throw new Error('the capture was accepted');
}

describe('readCaptureFile', () => {
  for (const name of CAPTURES) {
    it(`${name}: one frame, ethertype 0x88cc`, () => {
      const frames = readCaptureFile(captureBytes(name));
      expect(frames).toHaveLength(1);
      expect(Buffer.from(frames[0]!.subarray(12, 14)).toString('hex')).toBe('88cc');
    });
  }

  it("the pcap record holds exactly the frame: lldpd's SG200 frame is 583 bytes", () => {
    expect(frameOf('sg200.pcap')).toHaveLength(583);
    expect(frameOf('lldp.1.raw')).toEqual(captureBytes('lldp.1.raw'));
  });

  const two = [frameOf('sg200.pcap'), frameOf('connectx.pcap')];
  for (const opts of [{}, { bigEndian: true }, { nanoseconds: true }, { bigEndian: true, nanoseconds: true }]) {
    it(`pcap ${JSON.stringify(opts)}: every record, in order`, () => {
      expect(readCaptureFile(pcap(two, opts))).toEqual(two);
    });
  }

  it('a pcap without records holds no frames', () => {
    expect(readCaptureFile(pcap([]))).toEqual([]);
  });

  const refusals: [string, Uint8Array, string, RegExp][] = [
    ['an empty file', new Uint8Array(0), 'lldp-capture-invalid', /the file is empty/],
    ['JSON text', captureBytes('EXPECTED.json'), 'lldp-capture-invalid', /neither a pcap file nor a raw Ethernet frame/],
    ['three bytes', new Uint8Array([1, 2, 3]), 'lldp-capture-invalid', /neither a pcap file/],
    [
      'an IPv4 frame',
      concatBytes(frameOf('lldp.0.raw').subarray(0, 12), new Uint8Array([8, 0]), new Uint8Array(46)),
      'lldp-capture-invalid',
      /neither a pcap file/,
    ],
    ['Linux cooked capture (link type 113)', pcap(two, { linktype: 113 }), 'lldp-capture-unsupported', /link type 113 is not Ethernet/],
    ['pcapng', new Uint8Array([0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 28]), 'lldp-capture-unsupported', /pcapng is not supported/],
    ['a pcap header cut short', captureBytes('sg200.pcap').subarray(0, 20), 'lldp-capture-invalid', /link type needs 4 bytes, 0 left/],
    ['a pcap cut inside its last frame', captureBytes('sg200.pcap').subarray(0, 100), 'lldp-capture-invalid', /record 1 claims 583 bytes, 60 left/],
    ['a pcap cut inside a record header', pcap(two).subarray(0, 24 + 16 + 583 + 10), 'lldp-capture-invalid', /record 2 header is cut off \(10 of 16 bytes\)/],
  ];
  for (const [what, bytes, code, message] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      const err = refusal(bytes);
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
    });
  }

  it('refuses pcap version 3', () => {
    const v3 = new Uint8Array(captureBytes('connectx.pcap'));
    v3[4] = 3;
    expect(refusal(v3).message).toMatch(/version 3\.4 is not 2\.x/);
  });
});
