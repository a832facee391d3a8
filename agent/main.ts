import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FleetError } from '../shared/errors.js';
import { Tpm } from '../shared/tpm/client.js';
import { openTransport } from '../shared/tpm/transport.js';
import { ATTEST_TRIES, runAttestation } from './attest/run.js';
import { DEFAULT_PATHS, readBootId, readEventLog, readLldpFrame, readNicMac, readSerial, readSystemUuid } from './boot-facts.js';
import { INSTALL_CODE_PATH } from './install-code.js';

export const USAGE = `usage: fleet agent --url URL [options]
  --url URL            the verifier (https://..., or http:// on loopback)
  --ca FILE            PEM CA bundle the verifier's certificate must chain to
  --tpm SPEC           /dev/tpmrm0 (default), unix:/path/swtpm.sock or tcp:host:port
  --mac MAC | --nic N  the boot NIC's MAC, or the NIC to read it from
  --serial S           the SMBIOS serial (default: ${DEFAULT_PATHS.serial})
  --uuid-file FILE     the SMBIOS system UUID (default: ${DEFAULT_PATHS.uuid}; none there: none reported)
  --event-log FILE     the TCG event log (default: ${DEFAULT_PATHS.eventLog})
  --boot-id-file FILE  (default: ${DEFAULT_PATHS.bootId})
  --install-code FILE  where the code goes (default: ${INSTALL_CODE_PATH})
  --lldp-frame FILE    the switch's LLDP frame, recorded (raw frame or pcap; the first LLDP frame)
  --tries N            attempts (default ${ATTEST_TRIES.tries})
  --retry-delay SEC    between attempts (default ${ATTEST_TRIES.retryDelayS})`;

/** `fleet agent`: attest this boot once. Exit 0 on PASSED, 1 on FAILED, 2 with no verdict. */
export async function main(args: string[], say: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const { values: o } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      ca: { type: 'string' },
      tpm: { type: 'string', default: '/dev/tpmrm0' },
      mac: { type: 'string' },
      nic: { type: 'string' },
      serial: { type: 'string' },
      'uuid-file': { type: 'string', default: DEFAULT_PATHS.uuid },
      'event-log': { type: 'string', default: DEFAULT_PATHS.eventLog },
      'boot-id-file': { type: 'string', default: DEFAULT_PATHS.bootId },
      'install-code': { type: 'string', default: INSTALL_CODE_PATH },
      'lldp-frame': { type: 'string' },
      tries: { type: 'string', default: String(ATTEST_TRIES.tries) },
      'retry-delay': { type: 'string', default: String(ATTEST_TRIES.retryDelayS) },
      help: { type: 'boolean' },
    },
  });
  if (o.help) {
    say(USAGE);
    return 0;
  }
  if (!o.url) throw new FleetError('usage', `--url is required\n${USAGE}`);
  const mac = o.mac?.toLowerCase() ?? (o.nic ? await readNicMac(o.nic) : undefined);
  if (!mac) throw new FleetError('usage', "give --mac or --nic: the boot NIC's MAC goes in the report");
  const tries = Number(o.tries);
  const delay = Number(o['retry-delay']);
  if (!Number.isInteger(tries) || tries < 1 || !(delay >= 0)) throw new FleetError('usage', '--tries must be a whole number ≥ 1 and --retry-delay ≥ 0');

  const boot = {
    serial: o.serial ?? (await readSerial()),
    uuid: await readSystemUuid(o['uuid-file']),
    mac,
    bootId: await readBootId(o['boot-id-file']),
    eventLog: await readEventLog(o['event-log']),
    lldp: o['lldp-frame'] ? await readLldpFrame(o['lldp-frame']) : null,
  };
  const tpm = new Tpm(await openTransport(o.tpm));
  try {
    const outcome = await runAttestation({
      tpm,
      client: { baseUrl: o.url, ...(o.ca ? { ca: await readFile(o.ca) } : {}) },
      boot,
      installCodePath: o['install-code'],
      say,
      tries,
      retryDelayMs: delay * 1000,
    });
    return outcome.kind === 'passed' ? 0 : outcome.kind === 'failed' ? 1 : 2;
  } finally {
    await tpm.close();
  }
}
