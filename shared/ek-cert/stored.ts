import { ParseError } from '../errors.js';
import { readTlv, TAG } from './der.js';
import { isPem, pemCertificates } from './pem.js';

/** How the certificate was stored around its DER: what fleet took away to reach it. */
export interface StoredForm {
  encoding: 'der' | 'pem';
  /** The TCG PC Client stored-certificate header (TCG_PCCLIENT_STORED_CERT, 7 bytes) that TPM 1.2-era makers put before the DER in NV. */
  tcgHeader: boolean;
  /** Bytes after the DER: the rest of an NV index sized larger than the certificate (zeros, 0xff, or a maker's fill byte). */
  trailingBytes: number;
}

const STORED_CERT_TAG = 0x1001;
const FULL_CERT_TAG = 0x1002;
const HEADER_LENGTH = 7;

/**
 * The DER of an EK certificate as a TPM's NV index or a file holds it: plain DER, PEM, or DER
 * after the TCG stored-certificate header (tag 0x1001, certType 0 = full, certSize, tag 0x1002),
 * with any trailing padding. Its outer SEQUENCE's own length says where the certificate ends;
 * the signature covers exactly those bytes, so what follows them is not part of it.
 */
export function unwrapStored(bytes: Uint8Array): { der: Uint8Array; form: StoredForm } {
  if (isPem(bytes)) {
    const blocks = pemCertificates(bytes);
    if (blocks.length !== 1) throw new ParseError('ek-cert-malformed', `the PEM text holds ${blocks.length} certificates, not one`);
    const { der, trailingBytes } = trimmed(blocks[0]!, 0);
    return { der, form: { encoding: 'pem', tcgHeader: false, trailingBytes } };
  }
  const header = tcgHeader(bytes);
  const { der, trailingBytes } = trimmed(bytes, header ? HEADER_LENGTH : 0);
  if (header && header.certSize !== der.length + 2) {
    throw new ParseError('ek-cert-malformed', `the TCG header gives ${header.certSize - 2} certificate bytes, the certificate has ${der.length}`, 3);
  }
  return { der, form: { encoding: 'der', tcgHeader: header !== null, trailingBytes } };
}

function tcgHeader(bytes: Uint8Array): { certSize: number } | null {
  if (bytes.length < HEADER_LENGTH || (bytes[0]! << 8) + bytes[1]! !== STORED_CERT_TAG) return null;
  const certType = bytes[2]!;
  if (certType !== 0)
    throw new ParseError('ek-cert-malformed', `the TCG header holds a partial certificate (certType ${certType}); only a full one (0) can be read`, 2);
  if ((bytes[5]! << 8) + bytes[6]! !== FULL_CERT_TAG) throw new ParseError('ek-cert-malformed', 'the TCG header lacks the full-certificate tag 0x1002', 5);
  return { certSize: (bytes[3]! << 8) + bytes[4]! };
}

function trimmed(bytes: Uint8Array, offset: number): { der: Uint8Array; trailingBytes: number } {
  if (bytes[offset] !== TAG.sequence) throw new ParseError('ek-cert-malformed', 'not a certificate: it does not start with a DER SEQUENCE', offset);
  const outer = readTlv(bytes, offset);
  return { der: bytes.subarray(offset, outer.end), trailingBytes: bytes.length - outer.end };
}
