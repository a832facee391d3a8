import { errorMessage } from '../../shared/errors.js';
import { parseLldpFrame } from '../../shared/lldp/parse.js';
import type { SeenPort } from './cabling.js';

/** Port ID subtypes that carry a port's name (802.1AB: interfaceAlias, portComponent, interfaceName, local). */
const NAMED = new Set(['ifAlias', 'portComponent', 'ifName', 'local']);

/** The switch port named by the LLDP frame the agent reported (hex, as quoted), or why none is known. */
export function seenPort(lldpHex: string | null): SeenPort {
  if (lldpHex === null) return { port: null, why: 'the switch sent no LLDP frame within 35 seconds of the attestation' };
  let frame;
  try {
    frame = parseLldpFrame(Buffer.from(lldpHex, 'hex'));
  } catch (err) {
    return { port: null, why: `the LLDP frame does not parse: ${errorMessage(err)}` };
  }
  const names = [NAMED.has(frame.portId.subtypeName) ? frame.portId.value : undefined, frame.portDescription].filter((n): n is string => !!n);
  if (names.length === 0) return { port: null, why: `the LLDP frame names its port only by ${frame.portId.subtypeName} ${frame.portId.value}` };
  return { port: names[0]!, names };
}
