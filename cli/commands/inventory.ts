import { INVENTORY_LINES } from '../../verifier/inventory/lines.js';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FleetError } from '../../shared/errors.js';
import { DESIRED_ACTIONS, type DesiredAction } from '../../verifier/inventory/device.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { readNodesFile } from '../../verifier/inventory/embedded/nodes-file.js';
import { openDatabase } from '../../verifier/state/database.js';

const USAGE = `usage:
  fleet inventory check FILE [--node-network CIDR]            validate a nodes file as the plan step does
  fleet inventory show HOST --nodes FILE --state DIR [--node-network CIDR]   a device: declaration, state, journal
  fleet inventory action HOST provision|retire|none --nodes FILE --state DIR [--node-network CIDR]   set desired_action`;

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values: o, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { nodes: { type: 'string' }, state: { type: 'string' }, 'node-network': { type: 'string' } },
  });
  if (sub === 'check') return check(positionals[0], o['node-network']);
  if (sub !== 'show' && sub !== 'action') throw new FleetError('usage', USAGE);
  const host = positionals[0];
  if (!host || !o.nodes || !o.state) throw new FleetError('usage', USAGE);
  const db = openDatabase(o.state, { mustExist: sub === 'show' });
  try {
    const inv = new EmbeddedInventory(o.nodes, db, { nodeNetwork: o['node-network'] });
    const device = await inv.deviceByName(host);
    if (!device) throw new FleetError('not-found', `no node ${host} in ${o.nodes}`);
    if (sub === 'action') {
      const action = positionals[1] ?? '';
      if (action !== 'none' && !(DESIRED_ACTIONS as readonly string[]).includes(action)) throw new FleetError('usage', USAGE);
      await inv.setDesiredAction(device, action === 'none' ? null : (action as DesiredAction));
      const said = INVENTORY_LINES.desiredActionSet(action);
      await inv.journal(device, said.kind, said.message);
      console.log(`${host}: desired_action ${action}`);
      return 0;
    }
    console.log(JSON.stringify({ device, record: inv.record(host), journal: await inv.journalOf(device) }, null, 2));
    return 0;
  } finally {
    db.close();
  }
}

/** Prints every problem with its node, as the plan step would refuse it; exit 1 on any. */
async function check(path: string | undefined, nodeNetwork: string | undefined): Promise<number> {
  if (!path) throw new FleetError('usage', USAGE);
  const { file, problems } = readNodesFile(await readFile(path, 'utf8'), path, { nodeNetwork });
  for (const p of problems) console.log(`${p.where ? `${p.where}: ` : ''}${p.message}`);
  if (problems.length) {
    console.error(`${path}: ${problems.length} problem(s)`);
    return 1;
  }
  console.log(`${path}: ${file.nodes.length} node(s), ${file.classes.size} class(es), ${file.models.length} model(s); no problems`);
  return 0;
}
