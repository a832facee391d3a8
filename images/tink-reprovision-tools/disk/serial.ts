import { ParseError } from '../../../shared/errors.js';

/**
 * A serial as a disk reports it, made comparable: firmware pads with spaces or NULs (NVMe pads its
 * 20 bytes with spaces, SCSI often right-justifies). Null when nothing is left; a serial with
 * control or non-ASCII bytes is garbage, not a serial to match a declaration against.
 */
export function cleanSerial(raw: string): string | null {
  const s = raw.replace(/^[\s\0]+|[\s\0]+$/g, '');
  if (s === '') return null;
  if (!/^[\x20-\x7e]+$/.test(s)) throw new ParseError('serial-malformed', `a serial with unprintable bytes: ${JSON.stringify(s.slice(0, 40))}`);
  return s;
}

/**
 * The serial inside a `wwid`, where there is one: SCSI's `t10.<vendor><model> <serial>` (the ATA
 * translation puts the serial last) and NVMe's `nvme.<vid>-<serial hex>-<model hex>-<nsid>`. A WWN
 * (`naa.`, `eui.`) names the disk but holds no serial.
 */
export function wwidSerial(wwid: string): string | null {
  const w = wwid.trim();
  if (w.startsWith('t10.')) {
    const parts = w.slice(4).trim().split(/\s+/);
    return parts.length > 1 ? cleanSerial(parts.at(-1)!) : null;
  }
  const nvme = /^nvme\.[0-9a-f]{4}-([0-9a-f]*)-[0-9a-f]*-[0-9a-f]+$/i.exec(w);
  if (nvme) return cleanSerial(Buffer.from(nvme[1]!, 'hex').toString('latin1'));
  if (/^(naa|eui)\./i.test(w) || w === '') return null;
  throw new ParseError('wwid-malformed', `a wwid of no known form: ${JSON.stringify(w.slice(0, 60))}`);
}
