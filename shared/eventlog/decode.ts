/**
 * Decodes event data for display and policy. Most event data is not covered by the event's digest
 * (the firmware hashes the image, not the UEFI_IMAGE_LOAD_EVENT), so a decode failure is a value
 * (`kind: 'undecodable'`), never an exception: one odd event must not hide the rest of the log.
 * Results hold views into the log bytes, not copies.
 */
import { ByteReader } from '../bytes/reader.js';
import { ParseError } from '../errors.js';
import { SPEC_ID_EVENT03, hasSignature, parseSpecIdEvent, startupLocalityOf, type SpecIdEvent } from './noaction.js';
import * as T from './types.js';

export interface VariableData {
  readonly kind: 'variable';
  /** The vendor GUID, lower-case `8be4df61-93ca-11d2-aa0d-00e098032b8c` form. */
  readonly guid: string;
  readonly name: string;
  readonly data: Uint8Array;
  /** Bytes after VariableData: a spec violation some shims commit; policy code should refuse them. */
  readonly trailing: number;
}

export interface ImageLoad {
  readonly kind: 'image-load';
  readonly location: bigint;
  readonly length: bigint;
  readonly linkTimeAddress: bigint;
  readonly devicePath: Uint8Array;
  /** The device path's file-path nodes, e.g. `\EFI\BOOT\BOOTX64.EFI`. */
  readonly files: readonly string[];
  /** Bytes after DevicePath (OVMF writes some after a zero LengthOfDevicePath). */
  readonly trailing: number;
}

export interface GptPartition {
  readonly typeGuid: string;
  readonly uniqueGuid: string;
  readonly startingLba: bigint;
  readonly endingLba: bigint;
  readonly attributes: bigint;
  readonly name: string;
}

export type Decoded =
  | { readonly kind: 'spec-id'; readonly specId: SpecIdEvent }
  | { readonly kind: 'startup-locality'; readonly locality: number }
  /** Another EV_NO_ACTION payload, named by its leading NUL-terminated ASCII signature. */
  | { readonly kind: 'no-action'; readonly signature: string; readonly data: Uint8Array }
  | { readonly kind: 'text'; readonly text: string }
  /** UEFI_PLATFORM_FIRMWARE_BLOB(2): where firmware code was measured from. */
  | { readonly kind: 'blob'; readonly description?: string; readonly base: bigint; readonly length: bigint }
  | { readonly kind: 'guid'; readonly guid: string }
  | { readonly kind: 'separator'; readonly value: number; readonly error: boolean }
  | { readonly kind: 'tagged'; readonly tagId: number; readonly data: Uint8Array }
  | { readonly kind: 'gpt'; readonly diskGuid: string; readonly partitions: readonly GptPartition[] }
  | VariableData
  | ImageLoad
  /** A type this decoder does not interpret. */
  | { readonly kind: 'raw'; readonly data: Uint8Array }
  | { readonly kind: 'undecodable'; readonly reason: string; readonly data: Uint8Array };

const CODE = 'eventlog-undecodable';

export function decodeEvent(event: { readonly type: number; readonly data: Uint8Array }): Decoded {
  const { type, data } = event;
  try {
    return decodeOrThrow(type, data);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    return { kind: 'undecodable', reason: err.message, data };
  }
}

function decodeOrThrow(type: number, data: Uint8Array): Decoded {
  switch (type) {
    case T.EV_NO_ACTION:
      return decodeNoAction(data);
    case T.EV_EFI_ACTION:
    case T.EV_ACTION:
      return { kind: 'text', text: ascii(data, 'action') };
    case T.EV_POST_CODE:
      // Spec 1.05+: an ASCII label ("ACPI DATA", ...); older firmware: a firmware blob.
      return isPrintableAscii(data) ? { kind: 'text', text: ascii(data, 'post code') } : blob(data);
    case T.EV_S_CRTM_VERSION:
      return crtmVersion(data);
    case T.EV_IPL:
      return ipl(data);
    case T.EV_SEPARATOR:
      return separator(data);
    case T.EV_EVENT_TAG:
      return tagged(data);
    case T.EV_EFI_PLATFORM_FIRMWARE_BLOB:
      return blob(data);
    case T.EV_EFI_PLATFORM_FIRMWARE_BLOB2:
      return blob2(data);
    case T.EV_EFI_VARIABLE_DRIVER_CONFIG:
    case T.EV_EFI_VARIABLE_BOOT:
    case T.EV_EFI_VARIABLE_BOOT2:
    case T.EV_EFI_VARIABLE_AUTHORITY:
      return decodeVariable(data);
    case T.EV_EFI_BOOT_SERVICES_APPLICATION:
    case T.EV_EFI_BOOT_SERVICES_DRIVER:
    case T.EV_EFI_RUNTIME_SERVICES_DRIVER:
      return imageLoad(data);
    case T.EV_EFI_GPT_EVENT:
      return gpt(data);
    default:
      return { kind: 'raw', data };
  }
}

/** UEFI_VARIABLE_DATA; raises `ParseError` when its sizes overrun the data. */
export function decodeVariable(data: Uint8Array): VariableData {
  const r = reader(data, 'UEFI_VARIABLE_DATA');
  const guid = readGuid(r);
  const nameLength = sizeField(r, 'UnicodeNameLength');
  const dataLength = sizeField(r, 'VariableDataLength');
  const name = utf16(r.bytes(nameLength * 2, 'UnicodeName'), r);
  const value = r.bytes(dataLength, 'VariableData');
  return { kind: 'variable', guid, name, data: value, trailing: r.remaining };
}

export function formatGuid(b: Uint8Array): string {
  const h = (from: number, to: number, reverse: boolean): string => {
    const part = Array.from(b.subarray(from, to), (x) => x.toString(16).padStart(2, '0'));
    return (reverse ? part.reverse() : part).join('');
  };
  return `${h(0, 4, true)}-${h(4, 6, true)}-${h(6, 8, true)}-${h(8, 10, false)}-${h(10, 16, false)}`;
}

/** One line for people: `SecureBoot = 01`, `\EFI\BOOT\BOOTX64.EFI`, `Exit Boot Services Invocation`. */
export function summarize(d: Decoded): string {
  switch (d.kind) {
    case 'spec-id':
      return `Spec ID Event03: ${d.specId.algorithms.map((a) => T.HASH_ALGORITHMS.get(a.id)?.name ?? `alg 0x${a.id.toString(16)}`).join(', ')}`;
    case 'startup-locality':
      return `StartupLocality ${d.locality}`;
    case 'no-action':
      return d.signature ? `${d.signature} (${d.data.length} bytes)` : `${d.data.length} bytes`;
    case 'text':
      return clip(d.text);
    case 'blob':
      return `${d.description ? `${clip(d.description)} ` : ''}base 0x${d.base.toString(16)} length 0x${d.length.toString(16)}`;
    case 'guid':
      return d.guid;
    case 'separator':
      return d.error ? `error 0x${d.value.toString(16)}` : 'separator';
    case 'tagged':
      return `tag 0x${d.tagId.toString(16)}: ${clip(printable(d.data))}`;
    case 'gpt':
      return `GPT disk ${d.diskGuid}, ${d.partitions.length} partitions`;
    case 'variable':
      return `${clip(d.name)} (${d.data.length} bytes${d.data.length === 1 ? `: ${d.data[0]!.toString(16).padStart(2, '0')}` : ''})`;
    case 'image-load':
      return d.files.length ? clip(d.files.join('/')) : `image at 0x${d.location.toString(16)}, ${d.length} bytes`;
    case 'raw':
      return `${d.data.length} bytes`;
    case 'undecodable':
      return `undecodable: ${d.reason}`;
  }
}

function decodeNoAction(data: Uint8Array): Decoded {
  if (hasSignature(data, SPEC_ID_EVENT03)) return { kind: 'spec-id', specId: parseSpecIdEvent(data) };
  const locality = startupLocalityOf(data);
  if (locality !== null) return { kind: 'startup-locality', locality };
  const nul = data.indexOf(0);
  const head = nul > 0 && nul <= 32 ? data.subarray(0, nul) : new Uint8Array(0);
  return { kind: 'no-action', signature: isPrintableAscii(head) ? ascii(head, 'signature') : '', data };
}

/** Boot loaders log ASCII (GRUB's commands) or UTF-16 (systemd-boot's kernel command line). */
function ipl(data: Uint8Array): Decoded {
  if (isPrintableAscii(data)) return { kind: 'text', text: ascii(data, 'IPL') };
  const text = ucs2Text(data);
  return text ? { kind: 'text', text } : { kind: 'raw', data };
}

/** A UCS-2 version string (most firmware) or a GUID (OVMF: 16 bytes that are not text). */
function crtmVersion(data: Uint8Array): Decoded {
  const text = ucs2Text(data);
  if (text !== undefined) return { kind: 'text', text };
  if (data.length === 16) return { kind: 'guid', guid: formatGuid(data) };
  throw new ParseError(CODE, 'EV_S_CRTM_VERSION is neither a UCS-2 string nor a GUID');
}

/** Printable UCS-2 text without its trailing NULs (possibly empty), or undefined. */
function ucs2Text(data: Uint8Array): string | undefined {
  if (data.length === 0 || data.length % 2 !== 0) return undefined;
  const text = new TextDecoder('utf-16le').decode(data).replace(/\0+$/, '');
  return /^[\x20-\x7e]*$/.test(text) ? text : undefined;
}

function separator(data: Uint8Array): Decoded {
  const r = reader(data, 'separator');
  const value = r.u32le('separator value');
  r.end('separator');
  return { kind: 'separator', value, error: value !== 0 };
}

function tagged(data: Uint8Array): Decoded {
  const r = reader(data, 'TCG_PCClientTaggedEvent');
  const tagId = r.u32le('taggedEventID');
  const tagData = r.bytes(r.u32le('taggedEventDataSize'), 'taggedEventData');
  r.end('TCG_PCClientTaggedEvent');
  return { kind: 'tagged', tagId, data: tagData };
}

function blob(data: Uint8Array): Decoded {
  const r = reader(data, 'UEFI_PLATFORM_FIRMWARE_BLOB');
  const base = r.u64le('BlobBase');
  const length = r.u64le('BlobLength');
  r.end('UEFI_PLATFORM_FIRMWARE_BLOB');
  return { kind: 'blob', base, length };
}

function blob2(data: Uint8Array): Decoded {
  const r = reader(data, 'UEFI_PLATFORM_FIRMWARE_BLOB2');
  const description = ascii(r.bytes(r.u8('BlobDescriptionSize'), 'BlobDescription'), 'BlobDescription');
  const base = r.u64le('BlobBase');
  const length = r.u64le('BlobLength');
  r.end('UEFI_PLATFORM_FIRMWARE_BLOB2');
  return { kind: 'blob', description, base, length };
}

function imageLoad(data: Uint8Array): ImageLoad {
  const r = reader(data, 'UEFI_IMAGE_LOAD_EVENT');
  const location = r.u64le('ImageLocationInMemory');
  const length = r.u64le('ImageLengthInMemory');
  const linkTimeAddress = r.u64le('ImageLinkTimeAddress');
  const devicePath = r.bytes(sizeField(r, 'LengthOfDevicePath'), 'DevicePath');
  return { kind: 'image-load', location, length, linkTimeAddress, devicePath, files: filePaths(devicePath), trailing: r.remaining };
}

const MEDIA_DEVICE_PATH = 0x04;
const MEDIA_FILEPATH_DP = 0x04;
const END_DEVICE_PATH = 0x7f;

/** The file-path nodes of an EFI device path; other nodes are skipped, not rendered. */
function filePaths(path: Uint8Array): string[] {
  const r = reader(path, 'device path');
  const files: string[] = [];
  while (r.remaining > 0) {
    const type = r.u8('node type');
    const subtype = r.u8('node subtype');
    const length = r.u16le('node length');
    if (length < 4) r.fail(`device path node length ${length}`);
    const body = r.bytes(length - 4, 'node');
    if (type === END_DEVICE_PATH) break;
    if (type === MEDIA_DEVICE_PATH && subtype === MEDIA_FILEPATH_DP) files.push(utf16(body, r).replace(/\0+$/, ''));
  }
  return files;
}

const GPT_HEADER_SIZE = 92;
const GPT_ENTRY_MIN_SIZE = 128;

/** UEFI_GPT_DATA: the partition table header, then the partitions firmware counted. */
function gpt(data: Uint8Array): Decoded {
  const r = reader(data, 'UEFI_GPT_DATA');
  const header = reader(r.bytes(GPT_HEADER_SIZE, 'EFI_PARTITION_TABLE_HEADER'), 'EFI_PARTITION_TABLE_HEADER');
  if (ascii(header.bytes(8, 'Signature'), 'Signature') !== 'EFI PART') header.fail('signature is not "EFI PART"');
  header.offset = 56;
  const diskGuid = readGuid(header);
  header.offset = 84;
  const entrySize = header.u32le('SizeOfPartitionEntry');
  if (entrySize < GPT_ENTRY_MIN_SIZE) header.fail(`SizeOfPartitionEntry ${entrySize} is below ${GPT_ENTRY_MIN_SIZE}`);
  const count = sizeField(r, 'NumberOfPartitions');
  if (count * entrySize !== r.remaining) r.fail(`${count} partitions of ${entrySize} bytes do not fill the ${r.remaining} bytes left`);
  const partitions: GptPartition[] = [];
  for (let i = 0; i < count; i++) {
    const e = reader(r.bytes(entrySize, 'partition entry'), 'partition entry');
    partitions.push({
      typeGuid: readGuid(e),
      uniqueGuid: readGuid(e),
      startingLba: e.u64le('StartingLBA'),
      endingLba: e.u64le('EndingLBA'),
      attributes: e.u64le('Attributes'),
      name: utf16(e.bytes(72, 'PartitionName'), e).replace(/\0.*$/s, ''),
    });
  }
  return { kind: 'gpt', diskGuid, partitions };
}

function reader(data: Uint8Array, what: string): ByteReader {
  return new ByteReader(data, CODE, what);
}

function readGuid(r: ByteReader): string {
  return formatGuid(r.bytes(16, 'GUID'));
}

/** A u64 length that must also fit what is left (so no absurd count reaches an allocation). */
function sizeField(r: ByteReader, field: string): number {
  const at = r.offset;
  const v = r.u64le(field);
  if (v > BigInt(r.remaining)) r.fail(`${field} ${v} exceeds the ${r.remaining} bytes left`, at);
  return Number(v);
}

const UTF16 = new TextDecoder('utf-16le', { fatal: true });

function utf16(b: Uint8Array, r: ByteReader): string {
  if (b.length % 2 !== 0) r.fail('UTF-16 text has an odd length');
  try {
    return UTF16.decode(b);
  } catch {
    return r.fail('text is not valid UTF-16');
  }
}

function isPrintableAscii(b: Uint8Array): boolean {
  let end = b.length;
  while (end > 0 && b[end - 1] === 0) end--;
  if (end === 0) return false;
  for (let i = 0; i < end; i++) {
    const c = b[i]!;
    if ((c < 0x20 || c > 0x7e) && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

/** ASCII text without its trailing NULs; raises when it holds anything else. */
function ascii(b: Uint8Array, what: string): string {
  if (b.length > 0 && !isPrintableAscii(b)) throw new ParseError(CODE, `${what} is not printable ASCII`);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1').replace(/\0+$/, '');
}

function printable(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    .toString('latin1')
    .replace(/\0+$/, '')
    .replace(/[^\x20-\x7e]/g, '.');
}

function clip(s: string, max = 60): string {
  const oneLine = s.replace(/[\r\n\t]+/g, ' ');
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
