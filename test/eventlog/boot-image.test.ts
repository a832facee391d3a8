import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bootImages } from '../../shared/eventlog/boot-image.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { EV_EFI_ACTION, EV_EFI_BOOT_SERVICES_APPLICATION, EV_IPL, EV_SEPARATOR } from '../../shared/eventlog/types.js';
import { eventBytes, keylimeLog, measuredEvent, rebuild, toolsLog, withType } from './fixtures.js';

/** The SHA-256 digests of a log's PCR 4 boot applications, by the types it writes. */
function applications(bytes: Uint8Array): string[] {
  return Array.from(parseEventLog(bytes))
    .filter((e) => e.pcr === 4 && e.type === EV_EFI_BOOT_SERVICES_APPLICATION)
    .map((e) => Buffer.from(e.digests.get('sha256')!).toString('hex'));
}

describe('the images PCR 4 says a boot ran', () => {
  it.each([
    ['tpm2-tools event-arch-linux.bin', toolsLog('event-arch-linux.bin')],
    ['tpm2-tools event-gce-ubuntu-2104-log.bin', toolsLog('event-gce-ubuntu-2104-log.bin')],
    ['tpm2-tools event-moklisttrusted.bin', toolsLog('event-moklisttrusted.bin')],
    ['keylime binary_bios_measurements (an image before the separator)', keylimeLog('binary_bios_measurements')],
    ['keylime binary_bios_measurements-secureboot', keylimeLog('binary_bios_measurements-secureboot')],
  ])('%s: every boot application in order, past the separator and the actions', (_name, bytes) => {
    const apps = applications(bytes);
    expect(apps.length).toBeGreaterThan(1);
    expect(bootImages(parseEventLog(bytes))).toEqual(apps);
  });

  it('is read from the digests, not the types: an image relabelled as an action or a separator is still an image', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const apps = applications(log.bytes);
    const events = eventBytes(log);
    for (const type of [EV_EFI_ACTION, EV_SEPARATOR, EV_IPL]) {
      const relabelled = events.map((e, i) => (log.pcrOf(i) === 4 && log.typeOf(i) === EV_EFI_BOOT_SERVICES_APPLICATION ? withType(e, type) : e));
      expect(bootImages(parseEventLog(rebuild(relabelled)))).toEqual(apps);
    }
  });

  it('a separator and the fixed action strings are not images, whatever their label', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const events = eventBytes(log);
    const extra = [
      measuredEvent(log, 4, EV_EFI_BOOT_SERVICES_APPLICATION, new TextEncoder().encode('Returning from EFI Application from Boot Option')),
      measuredEvent(log, 4, EV_IPL, new Uint8Array(4)),
    ];
    expect(bootImages(parseEventLog(rebuild([...events, ...extra])))).toEqual(applications(log.bytes));
  });

  it('an event whose digest is the hash of its own data is still an image: an image can be logged as the bytes it was hashed from', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const hashedBytes = new TextEncoder().encode('MZ… the PE bytes Authenticode hashes');
    const hidden = measuredEvent(log, 4, EV_EFI_ACTION, hashedBytes);
    const images = bootImages(parseEventLog(rebuild([...eventBytes(log), hidden])));
    expect(images?.at(-1)).toBe(createHash('sha256').update(hashedBytes).digest('hex'));
  });

  it('is none for a log whose PCR 4 holds only a separator and an action', () => {
    expect(bootImages(parseEventLog(toolsLog('event-sd-boot-fedora37.bin')))).toEqual([]);
  });

  it('is null for a log without a SHA-256 bank', () => {
    expect(bootImages(parseEventLog(toolsLog('event-uefi-sha1-log.bin')))).toBeNull();
  });
});
