import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AttestedFacts, Device } from '../../verifier/inventory/device.js';
import { NetBoxInventory } from '../../verifier/inventory/netbox/netbox-inventory.js';
import { NetBoxClient } from '../../verifier/netbox/client.js';
import { refusesTyped, type Target } from '../engine/target.js';
import { jsonOf, TESTDATA, utf8 } from './testdata.js';

const RECORDED = join(TESTDATA, 'netbox/netbox-4.5-recorded');

interface Answer {
  status?: unknown;
  headers?: { 'content-type'?: unknown; location?: unknown };
  /** JSON, or a string sent as it is (an HTML error page, a cut answer). */
  body?: unknown;
}

/** What NetBox says, per route: `GET dcim/devices`, `PATCH dcim/devices/{id}`, `GET status`. Answers are used in turn; the last repeats. */
type Conversation = Record<string, Answer[]>;

function route(method: string, path: string): string {
  const p = path
    .replace(/^\/?api\//, '')
    .replace(/\?.*$/, '')
    .replace(/\/$/, '');
  return `${method} ${p.replace(/\/\d+$/, '/{id}')}`;
}

/** A fetch that answers from the conversation: no route, no answer (a refused connection). */
function fetchFrom(conversation: Conversation): typeof fetch {
  const used = new Map<string, number>();
  return (async (url: string | URL, init?: RequestInit) => {
    const key = route(init?.method ?? 'GET', new URL(String(url)).pathname);
    const answers = Array.isArray(conversation[key]) ? conversation[key] : [];
    const i = used.get(key) ?? 0;
    used.set(key, i + 1);
    const a = answers[Math.min(i, answers.length - 1)];
    if (a === undefined)
      throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    const text = typeof a?.body === 'string' ? a.body : a?.body === undefined ? '' : JSON.stringify(a.body);
    const headers = new Map<string, string>();
    for (const h of ['content-type', 'location'] as const) {
      const v = a?.headers?.[h];
      if (typeof v === 'string') headers.set(h, v);
    }
    return {
      status: typeof a?.status === 'number' ? a.status : 200,
      headers: { get: (h: string) => headers.get(h) ?? null },
      text: async () => text,
    } as unknown as Response;
  }) as typeof fetch;
}

function recorded(name: string): { key: string; answer: Answer } {
  const r = jsonOf<{ request: { method: string; path: string }; status: number; headers: Record<string, string>; body: unknown }>(join(RECORDED, name));
  const headers: Answer['headers'] = { 'content-type': r.headers['content-type'] };
  if (r.headers.location) headers.location = r.headers.location;
  return { key: route(r.request.method, r.request.path), answer: { status: r.status, headers, body: r.body } };
}

/** fleetd's day with NetBox: each route answered as the recorded NetBox 4.5 answered it. */
function labConversation(): Conversation {
  const c: Conversation = {};
  // The smaller answer where two would do: every input carries the whole conversation.
  const files = [
    'devices-by-serial.json',
    'devices-by-name.json',
    'interfaces-by-device.json',
    'journal-by-device.json',
    'device-get.json',
    'object-changes-user-name.json',
    'device-patch-attested.json',
    'mac-addresses-by-mac-lowercase.json',
    'mac-address-post.json',
    'interface-patch-primary-mac.json',
    'journal-post.json',
    'status.json',
  ];
  for (const f of files) {
    const { key, answer } = recorded(f);
    (c[key] ??= []).push(answer);
  }
  return c;
}

function seeds(): Uint8Array[] {
  const lab = labConversation();
  const out = [utf8(JSON.stringify(lab))];
  // Each recorded answer in place of the lab's first on its route: errors, pages, old shapes.
  for (const f of readdirSync(RECORDED)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const { key, answer } = recorded(f);
    if (!(key in lab)) continue; // a route fleet never asks
    out.push(utf8(JSON.stringify({ ...lab, [key]: [answer, ...(lab[key] ?? []).slice(1)] })));
  }
  return out;
}

const DEVICE: Device = { id: '4', hostname: 'cp-1', serial: 'PF3XYZ12', status: 'active', controlPlane: true, binding: {} };
const FACTS: AttestedFacts = {
  at: '2026-12-01T18:00:00.000Z',
  mac: '52:54:00:aa:bb:02',
  bootId: '0'.repeat(8) + '-0000-4000-8000-' + '0'.repeat(12),
  eks: { rsa2048: 'a'.repeat(64) },
  secureBoot: true,
  switchPort: 'Ethernet1',
};

/**
 * NetBox's answers to everything fleetd's NetBox inventory asks: a device by serial and by name,
 * the device list, its journal, the binding's authorship, recording an attestation (the MAC
 * object and the interface's primary MAC) and the status check.
 */
const target: Target = {
  name: 'netbox',
  kind: 'json',
  seedSources: ['netbox/netbox-4.5-recorded/*.json (a real NetBox 4.5.10)'],
  seeds,
  maxLen: 256 * 1024,
  sources: ['verifier/netbox/', 'verifier/inventory/netbox/', 'verifier/inventory/derive.ts'],
  oracle: 'a value, or a FleetError (NetBoxError with its code, inventory-ambiguous) from every call',
  async run(input) {
    let conversation: Conversation;
    try {
      conversation = JSON.parse(Buffer.from(input).toString('utf8')) as Conversation;
    } catch {
      return;
    }
    if (conversation === null || typeof conversation !== 'object') return;
    const nb = new NetBoxClient({
      url: 'https://netbox.lab',
      token: 'nbt_abcdefghijkl.' + 'x'.repeat(40),
      fetchImpl: fetchFrom(conversation),
      retries: 1,
      sleep: async () => undefined,
      random: () => 0,
    });
    const inv = new NetBoxInventory(nb, { bindingAuthor: 'terraform' });
    let device = DEVICE;
    await refusesTyped(async () => {
      device = (await inv.deviceBySerial('PF3XYZ12')) ?? DEVICE;
    });
    await refusesTyped(() => inv.deviceByName('cp-1'));
    await refusesTyped(() => inv.listDevices());
    await refusesTyped(() => inv.journalOf(device));
    await refusesTyped(() => inv.bindingAuthorship(device));
    await refusesTyped(() => inv.recordAttested(device, FACTS));
    await refusesTyped(() => inv.journal(device, 'info', 'attested'));
    await refusesTyped(() => nb.status());
  },
};

export default target;
