import { parseArgs } from 'node:util';
import type { CaCertificate } from '../../shared/ek-cert/chain.js';
import { readCaDirectory } from '../../shared/ek-cert/roots.js';
import { FleetError } from '../../shared/errors.js';
import { printable } from '../../shared/text/terminal.js';
import { approvalLines, rivalClaimsLine } from '../../verifier/approve.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';

const USAGE = 'usage: fleet attest approve SERIAL --state DIR [--ek-roots DIR]';

/**
 * `fleet attest approve SERIAL --state DIR [--ek-roots DIR]`: the waiting claim and the binding
 * lines; with --ek-roots, whether each EK certificate chains to the EK CA certificates in DIR. It
 * approves nothing, whatever the chain says.
 */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'approve') throw new FleetError('usage', USAGE);
  const { values: o, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { state: { type: 'string' }, 'ek-roots': { type: 'string' } },
  });
  const serial = positionals[0];
  if (!serial || positionals.length > 1 || !o.state) throw new FleetError('usage', USAGE);
  const roots = o['ek-roots'] === undefined ? null : await ekRoots(o['ek-roots']);
  const db = openDatabase(o.state);
  try {
    const claims = new LocalStore(db).claims(serial);
    if (!claims.length) {
      console.error(`fleet: no machine with the serial ${printable(serial)} waits for approval; power it on so that HookOS attests`);
      return 1;
    }
    if (claims.length > 1) console.log(rivalClaimsLine(serial, claims.length));
    const at = new Date();
    for (const [i, claim] of claims.entries()) {
      if (i) console.log('');
      for (const line of approvalLines(claim, { roots, at })) console.log(line);
    }
    return 0;
  } finally {
    db.close();
  }
}

/** The CA certificates of --ek-roots, read before anything is printed: a directory that does not read stops the command, naming it. */
async function ekRoots(dir: string): Promise<CaCertificate[]> {
  try {
    return await readCaDirectory(dir);
  } catch (err) {
    if (!(err instanceof FleetError)) throw err;
    throw new FleetError(err.code, `--ek-roots ${printable(dir)}: ${err.message}`);
  }
}
