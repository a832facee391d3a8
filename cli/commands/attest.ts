import { parseArgs } from 'node:util';
import { FleetError } from '../../shared/errors.js';
import { printable } from '../../shared/text/terminal.js';
import { approvalLines, rivalClaimsLine } from '../../verifier/approve.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';

const USAGE = 'usage: fleet attest approve SERIAL --state DIR';

/** `fleet attest approve SERIAL --state DIR`: the waiting claim and the binding lines. It approves nothing. */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'approve') throw new FleetError('usage', USAGE);
  const { values: o, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { state: { type: 'string' } } });
  const serial = positionals[0];
  if (!serial || !o.state) throw new FleetError('usage', USAGE);
  const db = openDatabase(o.state);
  try {
    const claims = new LocalStore(db).claims(serial);
    if (!claims.length) {
      console.error(`fleet: no machine with the serial ${printable(serial)} waits for approval; power it on so that HookOS attests`);
      return 1;
    }
    if (claims.length > 1) console.log(rivalClaimsLine(serial, claims.length));
    for (const [i, claim] of claims.entries()) {
      if (i) console.log('');
      for (const line of approvalLines(claim)) console.log(line);
    }
    return 0;
  } finally {
    db.close();
  }
}
