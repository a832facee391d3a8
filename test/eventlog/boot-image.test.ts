import { describe, expect, it } from 'vitest';
import { bootImage } from '../../shared/eventlog/boot-image.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { EV_EFI_ACTION, EV_EFI_BOOT_SERVICES_APPLICATION } from '../../shared/eventlog/types.js';
import { eventBytes, keylimeLog, rebuild, toolsLog, withType } from './fixtures.js';

/** The SHA-256 digests of a log's PCR 4 boot applications, by the types it writes. */
function applications(bytes: Uint8Array): string[] {
  return Array.from(parseEventLog(bytes))
    .filter((e) => e.pcr === 4 && e.type === EV_EFI_BOOT_SERVICES_APPLICATION)
    .map((e) => Buffer.from(e.digests.get('sha256')!).toString('hex'));
}

describe('what PCR 4 says booted', () => {
  it.each([
    ['tpm2-tools event-arch-linux.bin', toolsLog('event-arch-linux.bin')],
    ['tpm2-tools event-gce-ubuntu-2104-log.bin', toolsLog('event-gce-ubuntu-2104-log.bin')],
    ['keylime binary_bios_measurements', keylimeLog('binary_bios_measurements')],
    ['keylime binary_bios_measurements-secureboot', keylimeLog('binary_bios_measurements-secureboot')],
  ])('%s: the last boot application, past the separator and actions', (_name, bytes) => {
    const apps = applications(bytes);
    expect(apps.length).toBeGreaterThan(1);
    expect(bootImage(parseEventLog(bytes))).toEqual({ last: apps.at(-1), applications: apps });
  });

  it('is read from the digests, not the types: an image relabelled as an action is still the image', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const events = eventBytes(log);
    const last = Array.from(log)
      .filter((e) => e.pcr === 4 && e.type === EV_EFI_BOOT_SERVICES_APPLICATION)
      .at(-1)!;
    events[last.index] = withType(events[last.index]!, EV_EFI_ACTION);
    const relabelled = bootImage(parseEventLog(rebuild(events)));
    expect(relabelled.last).toBe(Buffer.from(last.digests.get('sha256')!).toString('hex'));
    expect(relabelled.applications).not.toContain(relabelled.last);
  });

  it('is nothing for a log whose PCR 4 holds only a separator and an action', () => {
    expect(bootImage(parseEventLog(toolsLog('event-sd-boot-fedora37.bin')))).toEqual({ last: null, applications: [] });
  });
});
