import { describe, expect, it } from 'vitest';
import { decodeEvent, summarize, type Decoded } from '../../shared/eventlog/decode.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import * as T from '../../shared/eventlog/types.js';
import { EXPECTED_PCRS, findEvent, keylimeLog, prettyYaml, toolsLog } from './fixtures.js';

function decodedOf(bytes: Uint8Array): Decoded[] {
  return Array.from(parseEventLog(bytes), decodeEvent);
}

describe('decodeEvent', () => {
  describe.each(Object.keys(EXPECTED_PCRS))('%s', (name) => {
    const decoded = decodedOf(toolsLog(name));
    const yaml = prettyYaml(name);

    it('names the UEFI variables tpm2-tools names, in order', () => {
      const names = [...yaml.matchAll(/^ {4}UnicodeName: (.*)$/gm)].map((m) => m[1]);
      expect(decoded.flatMap((d) => (d.kind === 'variable' ? [d.name] : []))).toEqual(names);
    });

    it('finds the image file paths tpm2-tools finds, in order', () => {
      const files = [...yaml.matchAll(/^ {4}DevicePath: '(.*)'$/gm)].flatMap((m) => [...m[1]!.matchAll(/File\(([^)]*)\)/g)].map((f) => f[1]));
      expect(decoded.flatMap((d) => (d.kind === 'image-load' ? d.files : []))).toEqual(files);
    });

    it('decodes every event without marking any undecodable', () => {
      expect(decoded.filter((d) => d.kind === 'undecodable')).toEqual([]);
    });
  });

  it('reads the Spec ID and StartupLocality EV_NO_ACTION events', () => {
    const decoded = decodedOf(keylimeLog('binary_bios_measurements'));
    expect(decoded[0]).toMatchObject({
      kind: 'spec-id',
      specId: {
        signature: 'Spec ID Event03',
        specVersionMajor: 2,
        algorithms: [
          { id: 4, size: 20 },
          { id: 11, size: 32 },
        ],
      },
    });
    expect(decoded[1]).toEqual({ kind: 'startup-locality', locality: 3 });
  });

  it('reads EV_S_CRTM_VERSION as UCS-2 text or, from OVMF, a GUID', () => {
    expect(decodedOf(keylimeLog('binary_bios_measurements'))[3]).toEqual({ kind: 'text', text: 'N40ET41W ' });
    expect(decodedOf(toolsLog('event-bootorder.bin'))[1]).toEqual({ kind: 'text', text: '' });
    expect(decodedOf(toolsLog('event-arch-linux.bin'))[1]).toEqual({ kind: 'guid', guid: '546bfb1e-1d0c-4055-a4ad-4ef4bf17b83a' });
  });

  it('reads actions, tagged events, separators and firmware blobs', () => {
    const log = parseEventLog(toolsLog('event-sd-boot-fedora37.bin'));
    const decoded = Array.from(log, decodeEvent);
    expect(decoded[26]).toEqual({ kind: 'text', text: 'Exit Boot Services Invocation' });
    const tag = decoded[findEvent(log, (e) => e.type === T.EV_EVENT_TAG)]!;
    expect(tag.kind === 'tagged' && [tag.tagId, Buffer.from(tag.data).toString('latin1')]).toEqual([0x8f3b22ec, 'Linux initrd\0']);
    expect(decoded[9]).toEqual({ kind: 'separator', value: 0, error: false });
    expect(decoded[2]).toEqual({ kind: 'blob', base: 0x820000n, length: 0xe0000n });
    expect(decoded[23]).toEqual({ kind: 'text', text: ' console=ttyS0 console=tty0 efi=debug ' });
  });

  it('reads the GPT event', () => {
    const log = parseEventLog(toolsLog('event-uefi-sha1-log.bin'));
    const gpt = decodeEvent(log.event(findEvent(log, (e) => e.type === T.EV_EFI_GPT_EVENT)));
    expect(gpt).toMatchObject({ kind: 'gpt', diskGuid: '87a9f0c7-ed2a-47fe-862e-f307c4175841' });
    expect(gpt.kind === 'gpt' && gpt.partitions.map((p) => [p.name, p.startingLba])).toEqual([
      ['EFI System Partition', 0x800n],
      ['', 0x100800n],
    ]);
  });

  it('marks damaged data undecodable instead of throwing', () => {
    const log = parseEventLog(keylimeLog('binary_bios_measurements'));
    const variable = log.event(findEvent(log, (e) => e.type === T.EV_EFI_VARIABLE_DRIVER_CONFIG));
    const cut = decodeEvent({ type: variable.type, data: variable.data.subarray(0, variable.data.length - 2) });
    expect(cut.kind).toBe('undecodable');
    expect(summarize(cut)).toMatch(/^undecodable: UEFI_VARIABLE_DATA: UnicodeName needs 20 bytes, 19 left/);
    expect(decodeEvent({ type: T.EV_SEPARATOR, data: new Uint8Array(3) }).kind).toBe('undecodable');
    expect(decodeEvent({ type: T.EV_EFI_ACTION, data: new Uint8Array([0x41, 0xff]) }).kind).toBe('undecodable');
    expect(decodeEvent({ type: T.EV_EFI_GPT_EVENT, data: new Uint8Array(100) }).kind).toBe('undecodable');
  });

  it('keeps variable data as a view and reports trailing bytes (old shims append some)', () => {
    const log = parseEventLog(toolsLog('event-postcode.bin'));
    const shim = decodeEvent(log.event(40));
    expect(shim).toMatchObject({ kind: 'variable', name: 'Shim', trailing: 6 });
    expect(shim.kind === 'variable' && shim.data.buffer).toBe(log.bytes.buffer);
  });
});
