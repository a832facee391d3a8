/**
 * The fake API server in its own process, so a benchmark measures only fleetd's CPU:
 * `tsx test/kube/fake-kube-main.ts N` seeds N nodes' Hardware and Machines, prints
 * `{"kubeconfig": PATH}` on one line, then answers stdin: `counts` prints the request counts
 * (and resets them), `exit` stops it.
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { fleetObjects } from '../../bench/reconcile-fleet.js';
import { FakeKube } from './fake-kube.js';

const n = Number(process.argv[2] ?? '0');
const fake = await FakeKube.start();
for (const o of fleetObjects(n, 'tinkerbell')) fake.put(o as never);
for (const file of ['provision.yaml', 'provision-image.yaml'])
  fake.put(parse(await readFile(new URL(`../../images/templates/${file}`, import.meta.url), 'utf8')));
process.stdout.write(`${JSON.stringify({ kubeconfig: fake.kubeconfigPath })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'counts') {
    process.stdout.write(`${JSON.stringify(fake.countBy())}\n`);
    fake.requests.length = 0;
  } else if (line === 'exit') break;
}
await fake.close();
process.exit(0);
