import { ParseError } from '../../../shared/errors.js';
import { cleanSerial } from './serial.js';

/**
 * SCSI VPD page 0x80 (Unit Serial Number), as sysfs gives it in `device/vpd_pg80`: a 4-byte header
 * (peripheral qualifier and type, page code 0x80, big-endian page length) and the serial in ASCII.
 * SATA disks report their serial only here and in `wwid` (libata translates it). Null: no serial.
 */
export function vpdPg80Serial(page: Uint8Array): string | null {
  if (page.length < 4) throw new ParseError('vpd-malformed', 'VPD page 0x80 shorter than its header', page.length);
  if (page[1] !== 0x80) throw new ParseError('vpd-malformed', `VPD page code 0x${page[1]!.toString(16)}, not 0x80`, 1);
  const len = (page[2]! << 8) | page[3]!;
  if (4 + len > page.length) throw new ParseError('vpd-malformed', `VPD page 0x80 claims ${len} bytes, holds ${page.length - 4}`, 2);
  return cleanSerial(Buffer.from(page.subarray(4, 4 + len)).toString('latin1'));
}
