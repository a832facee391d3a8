/**
 * How the certificate commands (ek-cert, platform-cert) show a certificate's dates and its chain
 * to the operator's CA certificates: one JSON shape and one wording for both.
 */
import { type CaCertificate, type ChainResult, chainFailureText, day, VALIDITY_WORDS, validityAt } from '../shared/ek-cert/chain.js';
import { nameText } from '../shared/ek-cert/names.js';
import { printable } from '../shared/text/terminal.js';

type Dated = { notBefore: Date; notAfter: Date };

export function datesJson(cert: Dated, at: Date): object {
  return { notBefore: cert.notBefore.toISOString(), notAfter: cert.notAfter.toISOString(), validity: validityAt(cert, at) };
}

/** `leaf` names the certificate verified, in the failure's words. */
export function chainJson(chain: ChainResult | null, at: Date, leaf: string): object | null {
  return (
    chain && {
      verified: chain.verified,
      certificates: chain.path.map((ca, i) => ({
        source: ca.source,
        subject: nameText(ca.cert.subject),
        root: chain.verified && i === chain.path.length - 1,
        ...datesJson(ca.cert, at),
      })),
      failure: chain.verified ? null : { reason: chain.failure.reason, message: chainFailureText(chain.failure, leaf) },
    }
  );
}

/** The report's chain line and a line for each CA on the path, after `line` (the report's label and value). */
export function chainLines(chain: ChainResult | null, at: Date, leaf: string, line: (label: string, value: string) => void, out: string[]): void {
  if (chain === null) return line('chain', 'not checked: give --roots DIR');
  const root = chain.path.at(-1);
  line('chain', chain.verified ? `verified up to the root ${printable(root!.source)}` : `not verified: ${printable(chainFailureText(chain.failure, leaf))}`);
  for (const [i, ca] of chain.path.entries()) out.push(`    issued by ${caText(ca, chain.verified && i === chain.path.length - 1, at)}`);
}

function caText(ca: CaCertificate, root: boolean, at: Date): string {
  const validity = validityAt(ca.cert, at);
  const dates =
    validity === 'valid' ? `valid to ${day(ca.cert.notAfter)}` : `${VALIDITY_WORDS[validity]}: ${day(ca.cert.notBefore)} to ${day(ca.cert.notAfter)}`;
  return `${printable(ca.source)}: ${printable(nameText(ca.cert.subject))} (${root ? 'root; ' : ''}${dates})`;
}
