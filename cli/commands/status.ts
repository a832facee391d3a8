import { setTimeout as sleep } from 'node:timers/promises';
import { FleetError } from '../../shared/errors.js';
import { inventoryConfig } from '../../verifier/config/serve-config.js';
import { readOptions } from '../../shared/options.js';
import { STATUS_OPTIONS, statusUsage } from '../../verifier/config/status-options.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { openInventory } from '../../verifier/inventory/open.js';
import { KubeClient } from '../../verifier/kube/client.js';
import { openDatabase } from '../../verifier/state/database.js';
import type { StatusFilter } from '../../verifier/status/device-status.js';
import { readStatus } from '../../verifier/status/read-status.js';
import { statusTable } from '../../verifier/status/status-table.js';

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** On a terminal, --watch redraws in place; piped, it prints each new view after a blank line. */
const CLEAR = '\x1b[H\x1b[2J';

/**
 * `fleet status`: one line per device (host, status, last verdict and when, switch port seen and
 * declared, desired_action, its run's state and action, its last journal line), read from the
 * inventory and Tinkerbell's API as fleetd reads them; `--watch` shows each change as it comes.
 */
export async function run(args: string[]): Promise<number> {
  const o = readOptions(STATUS_OPTIONS, args, process.env);
  if (o === 'help') {
    console.log(statusUsage());
    return 0;
  }
  const state = o.given('state');
  if (!state) throw new FleetError('usage', `--state is required\n${statusUsage()}`);
  const inventoryCfg = inventoryConfig(o.given);
  const interval = o.seconds('interval') * 1000;
  const filter: StatusFilter = { hosts: list(o.given('host')), statuses: list(o.given('status')) };
  const kubeconfig = o.given('kubeconfig');
  const kube = kubeconfig ? KubeClient.fromFile(kubeconfig, o.defaulted('namespace')) : null;
  const db = openDatabase(state, { mustExist: true });
  const inventory = await openInventory(inventoryCfg, db).catch((err: unknown) => {
    const served = err instanceof FleetError && err.code === 'nodes-invalid' ? EmbeddedInventory.refusedChange(db) : null;
    db.close();
    // The file is broken now; what fleetd serves meanwhile is what the operator needs next.
    if (served)
      throw new FleetError(
        'nodes-invalid',
        `${(err as FleetError).message}\nfleetd refused this change at ${served.at} and serves the ${served.change.kept} node(s) it read at ${served.change.keptSince}`,
      );
    throw err;
  });
  const view = async () => {
    const rows = await readStatus(inventory, kube, filter, Date.now());
    return o.flag('json') ? rows.map((r) => JSON.stringify(r)).join('\n') : statusTable(rows).join('\n');
  };
  try {
    if (!o.flag('watch')) {
      console.log(await view());
      return 0;
    }
    const stopped = new AbortController();
    const stop = () => stopped.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let shownView: string | null = null;
    while (!stopped.signal.aborted) {
      const next = await view();
      if (next !== shownView) {
        process.stdout.write(process.stdout.isTTY ? `${CLEAR}${next}\n` : `${shownView === null ? '' : '\n'}${next}\n`);
        shownView = next;
      }
      await sleep(interval, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
    return 0;
  } finally {
    await inventory.close();
    db.close();
  }
}
