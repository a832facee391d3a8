/**
 * `fleet lldp [--json] FILE`: decode the LLDP frames of a pcap capture or a raw frame file, to see
 * which switch port a machine is cabled to. Frames that are not LLDP are skipped; an LLDP frame
 * without its mandatory TLVs, or a file that is no capture, ends in one line on stderr naming the
 * error code, and exit status 1.
 *
 * `--json` prints `{"frames":[{"chassisId","portId","portIdSubtype","ttl","systemName","portDescription"}]}`
 * where portIdSubtype is the 802.1AB-2016 Port ID subtype by name: ifAlias (1), portComponent (2),
 * mac (3), networkAddress (4), ifName (5), agentCircuitId (6), local (7).
 */
import { runFileCommand } from '../file-command.js';
import { ParseError } from '../../shared/errors.js';
import { readCaptureFile } from '../../shared/lldp/capture.js';
import { findDecoded } from '../../shared/lldp/org.js';
import { LLDP_NOT_LLDP, parseLldpFrame } from '../../shared/lldp/parse.js';
import type { LldpFrame } from '../../shared/lldp/types.js';
import { printable } from '../../shared/text/terminal.js';

/** A capture's frames in order: decoded, or why one was skipped. */
export type Decoded = { index: number; frame: LldpFrame } | { index: number; skipped: string };

export function run(args: string[]): Promise<number> {
  return runFileCommand('lldp', args, (bytes) => {
    const decoded = decodeCapture(bytes);
    return { json: jsonReport(decoded), text: textReport(decoded) };
  });
}

/** Every frame of the capture; an LLDP frame that does not parse fails the whole file, naming it. */
function decodeCapture(bytes: Uint8Array): Decoded[] {
  return readCaptureFile(bytes).map((bytes, i) => {
    const index = i + 1;
    try {
      return { index, frame: parseLldpFrame(bytes) };
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      if (err.code === LLDP_NOT_LLDP) return { index, skipped: err.message };
      throw new ParseError(err.code, `frame ${index}: ${err.message}`);
    }
  });
}

export function jsonReport(decoded: Decoded[]): { frames: object[] } {
  const frames = decoded.flatMap((d) =>
    'frame' in d
      ? [
          {
            chassisId: d.frame.chassisId.value,
            portId: d.frame.portId.value,
            portIdSubtype: d.frame.portId.subtypeName,
            ttl: d.frame.ttl,
            systemName: d.frame.systemName ?? null,
            portDescription: d.frame.portDescription ?? null,
          },
        ]
      : [],
  );
  return { frames };
}

export function textReport(decoded: Decoded[]): string {
  if (decoded.length === 0) return 'no frames in the capture\n';
  const out: string[] = [];
  for (const d of decoded) {
    if ('skipped' in d) {
      out.push(`frame ${d.index}: skipped, ${d.skipped}`, '');
      continue;
    }
    const f = d.frame;
    const line = (label: string, value: string): void => void out.push(`  ${label.padEnd(18)}${printable(value)}`);
    const via = f.ethernet ? ` from ${f.ethernet.source}${f.ethernet.vlanIds.length ? `, VLAN tags ${f.ethernet.vlanIds.join(', ')}` : ''}` : '';
    out.push(`frame ${d.index}: LLDP${via}`);
    line('chassis ID', `${f.chassisId.value} (${f.chassisId.subtypeName})`);
    line('port ID', `${f.portId.value} (${f.portId.subtypeName})`);
    line('TTL', `${f.ttl} s${f.ttl === 0 ? ' (the neighbour is leaving)' : ''}`);
    if (f.portDescription !== undefined) line('port description', f.portDescription);
    if (f.systemName !== undefined) line('system name', f.systemName);
    if (f.systemDescription !== undefined) line('system', f.systemDescription.split('\n')[0]!);
    if (f.systemCapabilities) {
      const c = f.systemCapabilities;
      line('capabilities', `${c.availableNames.join(', ') || 'none'} (enabled: ${c.enabledNames.join(', ') || 'none'})`);
    }
    for (const m of f.managementAddresses) line('management', `${m.address} (${m.familyName}, ${m.interfaceSubtypeName} ${m.interfaceNumber})`);
    const pvid = findDecoded(f, 'dot1-port-vlan');
    if (pvid) line('port VLAN', String(pvid.vlanId));
    const macPhy = findDecoded(f, 'dot3-mac-phy');
    if (macPhy) {
      const autoneg = macPhy.autonegSupported ? (macPhy.autonegEnabled ? 'on' : 'supported, off') : 'not supported';
      line('link', `${macPhy.mauTypeName}, auto-negotiation ${autoneg}`);
    }
    const power = findDecoded(f, 'dot3-power');
    if (power) {
      const at = power.at ? `, type ${power.at.powerType}, allocated ${(power.at.allocatedMw / 1000).toFixed(1)} W` : '';
      line('PoE', `${power.portClass} ${power.pseEnabled ? 'enabled' : 'disabled'}, ${power.powerClassName}${at}`);
    }
    const med = findDecoded(f, 'med-capabilities');
    if (med) line('LLDP-MED', med.deviceTypeName);
    const others = f.orgSpecific.filter((o) => o.decoded === undefined);
    if (others.length)
      line(
        'other org TLVs',
        others.map((o) => `${o.ouiName ?? o.oui} subtype ${o.subtype} (${o.value.length} byte${o.value.length === 1 ? '' : 's'})`).join('; '),
      );
    for (const p of f.problems) line('problem', p);
    out.push('');
  }
  return out.join('\n');
}
