import { parseArgs } from 'node:util';
import { FleetError } from '../../shared/errors.js';
import { approvalLines } from '../../verifier/approve.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded.js';

/** `fleet approve SERIAL --nodes FILE --state DIR`: prints the binding lines for a waiting claim. */
export async function run(args: string[]): Promise<number> {
  const { values: o, positionals } = parseArgs({ args, allowPositionals: true, options: { nodes: { type: 'string' }, state: { type: 'string' } } });
  const serial = positionals[0];
  if (!serial || !o.nodes || !o.state) throw new FleetError('usage', 'usage: fleet approve SERIAL --nodes FILE --state DIR');
  const inv = await EmbeddedInventory.open(o.nodes, o.state);
  const claim = await inv.claim(serial);
  if (!claim) {
    console.error(`fleet: no machine with the serial ${serial} waits for approval; power it on so that HookOS attests`);
    return 1;
  }
  for (const line of approvalLines(claim)) console.log(line);
  return 0;
}
