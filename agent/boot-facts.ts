import { readFile } from 'node:fs/promises';
import { FleetError } from '../shared/errors.js';
import { readCaptureFile } from '../shared/lldp/capture.js';

/** Where Linux exposes what the agent reports; tests and the demo point these elsewhere. */
export const DEFAULT_PATHS = {
  serial: '/sys/class/dmi/id/product_serial',
  uuid: '/sys/class/dmi/id/product_uuid',
  bootId: '/proc/sys/kernel/random/boot_id',
  eventLog: '/sys/kernel/security/tpm0/binary_bios_measurements',
  net: '/sys/class/net',
};

async function readTrimmed(path: string, what: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw new FleetError('boot-facts', `cannot read ${what} from ${path}: ${(err as Error).message}`);
  }
}

export function readSerial(path = DEFAULT_PATHS.serial): Promise<string> {
  return readTrimmed(path, 'the SMBIOS serial');
}

/** The SMBIOS system UUID, lowercase; null when the firmware gives none (or an all-zero or malformed one). */
export async function readSystemUuid(path = DEFAULT_PATHS.uuid): Promise<string | null> {
  const uuid = (await readFile(path, 'utf8').catch(() => '')).trim().toLowerCase();
  return /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/.test(uuid) && !/^[0-]+$/.test(uuid) ? uuid : null;
}

export function readBootId(path = DEFAULT_PATHS.bootId): Promise<string> {
  return readTrimmed(path, 'the boot id');
}

export async function readNicMac(nic: string, net = DEFAULT_PATHS.net): Promise<string> {
  return (await readTrimmed(`${net}/${nic}/address`, `${nic}'s MAC`)).toLowerCase();
}

/** The first LLDP frame of a recorded capture (pcap or raw frame file). */
export async function readLldpFrame(path: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (err) {
    throw new FleetError('boot-facts', `cannot read the LLDP frame ${path}: ${(err as Error).message}`);
  }
  const frame = readCaptureFile(bytes)[0];
  if (!frame) throw new FleetError('boot-facts', `${path} holds no frame`);
  return frame;
}

/** The firmware event log, or null when this machine has none (no TPM log, or securityfs not mounted). */
export async function readEventLog(path = DEFAULT_PATHS.eventLog): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new FleetError('boot-facts', `cannot read the event log ${path}: ${(err as Error).message}`);
  }
}
