import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readCaDirectory } from '../../shared/ek-cert/roots.js';
import { errorMessage, FleetError } from '../../shared/errors.js';
import { type PlatformCertificate, parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { readPlatformRoots } from '../../shared/platform-cert/roots.js';
import { printable } from '../../shared/text/terminal.js';
import { approvalLines, rivalClaimsLine, shedClaimsLine } from '../../verifier/approve.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';

const USAGE = 'usage: fleet attest approve SERIAL --state DIR [--ek-roots DIR [--platform-cert FILE [--platform-roots DIR]]]';

/**
 * `fleet attest approve SERIAL --state DIR [--ek-roots DIR [--platform-cert FILE [--platform-roots
 * DIR]]]`: the waiting claim and the binding lines; with --ek-roots, whether each EK certificate
 * chains to the EK CA certificates in DIR; with --platform-cert, whether that platform certificate
 * ties the claim's serial to one of its EK certificates, verified up to the CA certificates of
 * --platform-roots. It approves nothing, whatever they say.
 */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'approve') throw new FleetError('usage', USAGE);
  const { values: o, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      state: { type: 'string' },
      'ek-roots': { type: 'string' },
      'platform-cert': { type: 'string' },
      'platform-roots': { type: 'string' },
    },
  });
  const serial = positionals[0];
  if (!serial || positionals.length > 1 || !o.state) throw new FleetError('usage', USAGE);
  if (o['platform-roots'] !== undefined && o['platform-cert'] === undefined) throw new FleetError('usage', USAGE);
  // A holder names an EK certificate by issuer and serial, which anyone can copy: only a chain verified to the EK roots stands for it.
  if (o['platform-cert'] !== undefined && o['ek-roots'] === undefined)
    throw new FleetError('usage', `--platform-cert needs --ek-roots: the EK certificate it names counts only once it verifies to them\n${USAGE}`);
  // Everything the operator brings is read before anything is printed: what does not read stops the command, naming it.
  const roots = o['ek-roots'] === undefined ? null : await named('--ek-roots', o['ek-roots'], readCaDirectory);
  const [platformCert, platformRoots] = [o['platform-cert'], o['platform-roots']];
  const platform =
    platformCert === undefined
      ? undefined
      : {
          certificate: await named('--platform-cert', platformCert, readPlatformCertificate),
          roots: platformRoots === undefined ? null : await named('--platform-roots', platformRoots, readPlatformRoots),
        };
  const db = openDatabase(o.state, { mustExist: true });
  try {
    const store = new LocalStore(db);
    const claims = store.claims(serial);
    const shed = store.shedClaims(serial);
    if (!claims.length) {
      if (shed) console.error(shedClaimsLine(serial, shed));
      console.error(`fleet: no machine with the serial ${printable(serial)} waits for approval; power it on so that HookOS attests`);
      return 1;
    }
    if (shed) console.log(shedClaimsLine(serial, shed));
    if (claims.length > 1) console.log(rivalClaimsLine(serial, claims.length));
    const at = new Date();
    for (const [i, claim] of claims.entries()) {
      if (i) console.log('');
      for (const line of approvalLines(claim, { roots, platform, at })) console.log(line);
    }
    return 0;
  } finally {
    db.close();
  }
}

/** `read(path)`, its typed error naming the option and the path. */
async function named<T>(option: string, path: string, read: (path: string) => Promise<T>): Promise<T> {
  try {
    return await read(path);
  } catch (err) {
    if (!(err instanceof FleetError)) throw err;
    throw new FleetError(err.code, `${option} ${printable(path)}: ${err.message}`);
  }
}

async function readPlatformCertificate(path: string): Promise<PlatformCertificate> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new FleetError('platform-cert-unreadable', `cannot read: ${errorMessage(err)}`);
  }
  return parsePlatformCertificate(bytes);
}
