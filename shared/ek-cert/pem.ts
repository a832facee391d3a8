import { ParseError } from '../errors.js';

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \1-----/g;

/** Whether the bytes are PEM text (perhaps after other text, as openssl writes bundles): not DER, and a BEGIN line somewhere. */
export function isPem(bytes: Uint8Array): boolean {
  return bytes[0] !== 0x30 && Buffer.from(bytes).toString('latin1').includes('-----BEGIN ');
}

/** The DER of every CERTIFICATE block in PEM text, in order; other blocks (a key, a CRL) are not certificates and are refused. */
export function pemCertificates(bytes: Uint8Array): Uint8Array[] {
  return pemBlocks(bytes, ['CERTIFICATE']);
}

/** The DER of every PEM block in the text, in order, each labelled with one of `labels`; a block of another label is refused. */
export function pemBlocks(bytes: Uint8Array, labels: readonly string[]): Uint8Array[] {
  const text = Buffer.from(bytes).toString('latin1');
  const out: Uint8Array[] = [];
  const expected = labels.join(' or ');
  for (const m of text.matchAll(BLOCK)) {
    if (!labels.includes(m[1]!)) throw new ParseError('ek-cert-malformed', `a PEM block is ${m[1]}, not ${expected}`);
    const body = m[2]!.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) throw new ParseError('ek-cert-malformed', `a PEM ${m[1]} block is not base64`);
    out.push(new Uint8Array(Buffer.from(body, 'base64')));
  }
  if (out.length === 0) throw new ParseError('ek-cert-malformed', `the PEM text has no complete ${expected} block`);
  return out;
}
