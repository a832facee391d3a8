/**
 * A faithful fake NetBox 4.6 (or 4.5, `version: '4.5.10'`) for fleet's tests, replayed against a real
 * NetBox 4.5.10's recorded answers in recorded-replay.test.ts: a real HTTP server on 127.0.0.1 (port 0) that keeps
 * its objects in memory and answers with NetBox's shapes, status codes and error bodies, as read
 * from NetBox's source (netbox/netbox/api/authentication.py, pagination.py, the serializers and
 * filtersets of dcim/extras/core, extras/api/customfields.py, netbox/models/features.py).
 *
 * Behaviours that matter to a client and that the fake keeps:
 * - unknown query parameters (and empty values) are silently ignored: a typo'd filter lists everything;
 * - `limit` defaults to 50 and is capped at MAX_PAGE_SIZE (1000) without an error; `next`/`previous`
 *   are absolute URLs built from the request's Host;
 * - PATCH merges `custom_fields` into the existing ones; an unknown custom field answers 400, a bad
 *   value for a custom field (select choice, boolean, text) answers 400 under `__all__`;
 * - every write through the API records an ObjectChange (user, request id, pre/post data), and an
 *   update that changes nothing records none (CHANGELOG_SKIP_EMPTY_CHANGES, on by default);
 * - auth failures are 403 with NetBox's `detail` strings; a read-only token gets 403 on writes;
 * - object permissions per user (setPermissions: view/add/change/delete per object type) are checked
 *   before the method: a user without them gets 403 "You do not have permission…", not 405;
 * - v1 tokens are 40 letters and digits; a v1 provisioning answers `key: null` and the token in `token`;
 * - changelog snapshots hold only the custom fields ever set, and a creation's prechange_data is {};
 * - a missing object is 404 `{"detail": "No Device matches the given query."}` (DRF 3.15+).
 *
 * Test-only controls (not HTTP): seeding (devices, interfaces, MACs, cables, a custom field set "as
 * another user", dropping an object's changelog) and fault injection (5xx, delays, closed connections).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NETBOX_NO_PERMISSION, requiredPermission, type PermissionAction } from '../../verifier/netbox/errors.js';
import {
  contentTypeLabel,
  FakeNetBoxModel,
  FLEET_CUSTOM_FIELDS,
  MicroClock,
  normalizeMac,
  type CableRec,
  type ChangeRec,
  type CustomFieldDef,
  type DeviceRec,
  type InterfaceRec,
  type JournalRec,
  type MacRec,
  type TokenRec,
  type UserRec,
} from './fake-netbox-model.js';
import {
  applyFilters,
  applyOrdering,
  cableFilters,
  changeFilters,
  compare,
  deviceFilters,
  interfaceFilters,
  journalFilters,
  macFilters,
  pageParams,
  paginate,
  type Errors,
} from './fake-netbox-query.js';

export { FLEET_CUSTOM_FIELDS, type CustomFieldDef } from './fake-netbox-model.js';
export type { PermissionAction } from '../../verifier/netbox/errors.js';

export interface FakeNetBoxOptions {
  /** Custom fields on dcim.device. Default: fleet's. */
  customFields?: readonly CustomFieldDef[];
  /** `netbox-version` of /api/status/. */
  version?: string;
  /** PAGINATE_COUNT (default 50). */
  paginateCount?: number;
  /** MAX_PAGE_SIZE (default 1000). */
  maxPageSize?: number;
  /** Clock for created/last_updated/time (ms since the epoch). */
  now?: () => number;
  /** The superuser seeding records its changes as (default `admin`, password `admin-password`). */
  adminUsername?: string;
  adminPassword?: string;
}

/** Object types by action: `{view: ['dcim.device'], change: ['dcim.device']}`. */
export type Permissions = Partial<Record<PermissionAction, readonly string[]>>;

export interface TokenOptions {
  version?: 1 | 2;
  writeEnabled?: boolean;
  enabled?: boolean;
  expires?: string | null;
  /** v2: the key (12 letters and digits). Default: random. */
  key?: string;
  /** v1: the whole token; v2: the secret (40 letters and digits). Default: random. */
  secret?: string;
}

export interface FaultMatch {
  /** Only requests with this method. */
  method?: string;
  /** Only requests whose path starts with this (`/api/dcim/devices/`). */
  path?: string;
}

export interface FailOptions extends FaultMatch {
  /** Default 502. */
  status?: number;
  /** Default: a proxy-style HTML page for 502/503/504, NetBox's JSON 500 body for 500. */
  body?: string;
  contentType?: string;
  /** Handle the request (apply the write) first, then answer the failure: "the answer was lost". */
  afterHandling?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  /** `Token`, `Bearer`, something else, or null when no Authorization header came. */
  authScheme: string | null;
  /** The HTTP status answered, or `closed` when the fake dropped the connection. */
  outcome: number | 'closed' | 'pending';
}

interface Ctx {
  origin: string;
  user: UserRec;
  requestId: string;
  message: string;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Raw text body (HTML pages). */
  raw?: string;
  contentType?: string;
}

type Fault = ({ kind: 'fail'; options: FailOptions } | { kind: 'close'; afterHandling: boolean }) & FaultMatch & { left: number };
type Delay = FaultMatch & { left: number; ms: number };

const json = (status: number, body: unknown, headers?: Record<string, string>): Answer =>
  headers === undefined ? { status, body } : { status, body, headers };
const detail = (status: number, message: string): Answer => json(status, { detail: message });
const NOT_PROVIDED = 'Authentication credentials were not provided.';

export class FakeNetBox {
  readonly model: FakeNetBoxModel;
  readonly version: string;
  readonly paginateCount: number;
  readonly maxPageSize: number;
  /** Every request the fake received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** A write-enabled v1 token of user `fleet`. */
  readonly token: string;
  /** A write-enabled v2 token of user `fleet`. */
  readonly tokenV2: string;
  /** The user tokens belong to unless said otherwise. */
  readonly fleetUser: UserRec;
  /** The user seeding records its changes as. */
  readonly adminUser: UserRec;

  #server: http.Server;
  #origin = '';
  #faults: Fault[] = [];
  #delays: Delay[] = [];
  #timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  /** Object permissions by user id (`change:dcim.device`); a user without an entry may do everything. */
  #permissions = new Map<number, Set<string>>();

  private constructor(options: FakeNetBoxOptions) {
    this.model = new FakeNetBoxModel(options.customFields ?? FLEET_CUSTOM_FIELDS, new MicroClock(options.now));
    this.version = options.version ?? '4.6.8';
    this.paginateCount = options.paginateCount ?? 50;
    this.maxPageSize = options.maxPageSize ?? 1000;
    this.model.netboxVersion = this.version;
    this.adminUser = this.addUser(options.adminUsername ?? 'admin', options.adminPassword ?? `${options.adminUsername ?? 'admin'}-password`);
    this.fleetUser = this.addUser('fleet', 'fleet-password');
    this.token = this.addToken('fleet', { version: 1 });
    this.tokenV2 = this.addToken('fleet', { version: 2 });
    this.#server = http.createServer((req, res) => {
      this.#onRequest(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(`fake-netbox crashed: ${err instanceof Error ? err.stack : String(err)}`);
        }
      });
    });
  }

  static async start(options: FakeNetBoxOptions = {}): Promise<FakeNetBox> {
    const fake = new FakeNetBox(options);
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject);
      fake.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = fake.#server.address() as AddressInfo;
    fake.#origin = `http://127.0.0.1:${port}`;
    return fake;
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    return this.#origin;
  }

  /** `http://127.0.0.1:<port>/api/` */
  get apiUrl(): string {
    return `${this.#origin}/api/`;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) {
      clearTimeout(t.timer);
      t.resolve();
    }
    this.#timers.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ---- users and tokens ----------------------------------------------------------------------------

  addUser(username: string, password = `${username}-password`): UserRec {
    const existing = [...this.model.users.values()].find((u) => u.username === username);
    if (existing) return existing;
    const user = { id: this.model.nextId('user'), username, password };
    this.model.users.set(user.id, user);
    return user;
  }

  /**
   * Adds a token for `username` (created if needed) and answers the string a client sends:
   * 40 hex characters (v1), or `nbt_<key>.<secret>` (v2).
   */
  addToken(username: string, options: TokenOptions = {}): string {
    return this.#tokenString(this.#createToken(this.addUser(username), options));
  }

  /**
   * Gives a user NetBox object permissions: only the listed actions on the listed object types
   * (`core.objectchange`, `dcim.device`, …). A user never given any (like a superuser) may do everything.
   */
  setPermissions(username: string, permissions: Permissions): void {
    const user = this.addUser(username);
    const granted = new Set<string>();
    for (const [action, types] of Object.entries(permissions)) for (const t of types ?? []) granted.add(`${action}:${t}`);
    this.#permissions.set(user.id, granted);
  }

  #permitted(user: UserRec, action: PermissionAction, objectType: string): boolean {
    const granted = this.#permissions.get(user.id);
    return granted === undefined || granted.has(`${action}:${objectType}`);
  }

  #createToken(user: UserRec, options: TokenOptions): TokenRec {
    const version = options.version ?? 2;
    const alnum = (n: number): string => {
      const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
      return [...randomBytes(n)].map((b) => chars[b % chars.length]).join('');
    };
    const token: TokenRec = {
      id: this.model.nextId('token'),
      version,
      key: version === 2 ? (options.key ?? alnum(12)) : null,
      // users/constants.py: TOKEN_CHARSET = ascii_letters + digits, TOKEN_DEFAULT_LENGTH = 40 (v1 and v2 alike).
      secret: options.secret ?? alnum(40),
      userId: user.id,
      writeEnabled: options.writeEnabled ?? true,
      enabled: options.enabled ?? true,
      expires: options.expires ?? null,
      description: '',
      created: this.model.clock.tick().iso,
    };
    this.model.tokens.set(token.id, token);
    return token;
  }

  #tokenString(t: TokenRec): string {
    return t.version === 2 ? `nbt_${t.key}.${t.secret}` : t.secret;
  }

  // ---- seeding ---------------------------------------------------------------------------------

  #seedCtx(user: UserRec = this.adminUser): Ctx {
    return { origin: this.#origin, user, requestId: randomUUID(), message: '' };
  }

  /** Adds a device as `admin` would through the UI (its creation is in the changelog). Answers its id. */
  addDevice(options: {
    name: string;
    serial?: string;
    status?: string;
    role?: 'server' | 'switch';
    customFields?: Record<string, unknown>;
    /** `10.0.0.5/24`: creates the IP address and makes it the primary IPv4. */
    primaryIp4?: string;
  }): number {
    const now = this.model.clock.tick().iso;
    let ip: number | null = null;
    if (options.primaryIp4 !== undefined) {
      ip = this.model.nextId('ip');
      this.model.ips.set(ip, { id: ip, address: options.primaryIp4, dns_name: '', description: '' });
    }
    // custom_field_data holds only the fields ever set (changelog snapshots show just those).
    const cf: Record<string, unknown> = {};
    const device: DeviceRec = {
      id: this.model.nextId('device'),
      name: options.name,
      serial: options.serial ?? '',
      status: options.status ?? 'active',
      role: options.role ?? 'server',
      asset_tag: null,
      primary_ip4: ip,
      description: '',
      comments: '',
      custom_field_data: cf,
      created: now,
      last_updated: now,
    };
    this.model.devices.set(device.id, device);
    const ctx = this.#seedCtx();
    if (options.customFields) {
      const errors = this.#customFieldErrors(options.customFields);
      if (errors) throw new Error(`fake-netbox: addDevice(${options.name}): ${JSON.stringify(errors)}`);
      const valueError = this.#customFieldValueError(options.customFields);
      if (valueError) throw new Error(`fake-netbox: addDevice(${options.name}): ${valueError}`);
      Object.assign(device.custom_field_data, structuredClone(options.customFields));
    }
    this.#record(ctx, 'create', 'dcim.device', device.id, null, this.model.snapshot('dcim.device', device.id));
    return device.id;
  }

  /** Adds an interface; with `mac`, also its MAC address object, made primary. Answers the interface id. */
  addInterface(options: { deviceId: number; name: string; type?: string; mgmtOnly?: boolean; label?: string; mac?: string }): number {
    if (!this.model.devices.has(options.deviceId)) throw new Error(`fake-netbox: no device ${options.deviceId}`);
    const now = this.model.clock.tick().iso;
    const iface: InterfaceRec = {
      id: this.model.nextId('interface'),
      device: options.deviceId,
      name: options.name,
      label: options.label ?? '',
      type: options.type ?? '1000base-t',
      enabled: true,
      mgmt_only: options.mgmtOnly ?? false,
      mark_connected: false,
      cable: null,
      cable_end: '',
      primary_mac_address: null,
      description: '',
      created: now,
      last_updated: now,
    };
    this.model.interfaces.set(iface.id, iface);
    this.#record(this.#seedCtx(), 'create', 'dcim.interface', iface.id, null, this.model.snapshot('dcim.interface', iface.id), {
      type: 'dcim.device',
      id: iface.device,
    });
    if (options.mac !== undefined) this.addMacAddress({ interfaceId: iface.id, mac: options.mac, primary: true });
    return iface.id;
  }

  /** Adds a MAC address object assigned to an interface (optionally its primary MAC). Answers its id. */
  addMacAddress(options: { interfaceId: number; mac: string; primary?: boolean }): number {
    const iface = this.model.interfaces.get(options.interfaceId);
    if (!iface) throw new Error(`fake-netbox: no interface ${options.interfaceId}`);
    const mac = normalizeMac(options.mac);
    if (mac === null) throw new Error(`fake-netbox: not a MAC address: ${options.mac}`);
    const now = this.model.clock.tick().iso;
    const rec: MacRec = {
      id: this.model.nextId('mac'),
      mac_address: mac,
      assigned_object_type: 'dcim.interface',
      assigned_object_id: iface.id,
      description: '',
      comments: '',
      created: now,
      last_updated: now,
    };
    this.model.macs.set(rec.id, rec);
    const ctx = this.#seedCtx();
    this.#record(ctx, 'create', 'dcim.macaddress', rec.id, null, this.model.snapshot('dcim.macaddress', rec.id), {
      type: 'dcim.interface',
      id: iface.id,
    });
    if (options.primary) {
      const pre = this.model.snapshot('dcim.interface', iface.id);
      iface.primary_mac_address = rec.id;
      iface.last_updated = this.model.clock.tick().iso;
      this.#record(ctx, 'update', 'dcim.interface', iface.id, pre, this.model.snapshot('dcim.interface', iface.id), {
        type: 'dcim.device',
        id: iface.device,
      });
    }
    return rec.id;
  }

  /**
   * Creates IP address `address` on an interface of the device and makes it the device's primary
   * IPv4, as terraform would (an update of the device in its changelog). Answers the IP's id.
   */
  setPrimaryIp4(deviceId: number, address: string, interfaceId?: number): number {
    const d = this.model.devices.get(deviceId);
    if (!d) throw new Error(`fake-netbox: no device ${deviceId}`);
    if (interfaceId !== undefined && this.model.interfaces.get(interfaceId)?.device !== deviceId) {
      throw new Error(`fake-netbox: interface ${interfaceId} is not on device ${deviceId}`);
    }
    const ip = this.model.nextId('ip');
    this.model.ips.set(ip, { id: ip, address, dns_name: '', description: '' });
    const pre = this.model.snapshot('dcim.device', deviceId);
    d.primary_ip4 = ip;
    d.last_updated = this.model.clock.tick().iso;
    this.#record(this.#seedCtx(), 'update', 'dcim.device', deviceId, pre, this.model.snapshot('dcim.device', deviceId));
    return ip;
  }

  /** Adds a journal entry on a device, written by `admin`. Answers its id. */
  addJournalEntry(options: { deviceId: number; kind?: 'info' | 'success' | 'warning' | 'danger'; comments: string }): number {
    if (!this.model.devices.has(options.deviceId)) throw new Error(`fake-netbox: no device ${options.deviceId}`);
    const now = this.model.clock.tick().iso;
    const rec: JournalRec = {
      id: this.model.nextId('journal'),
      assigned_object_type: 'dcim.device',
      assigned_object_id: options.deviceId,
      created_by: this.adminUser.id,
      kind: options.kind ?? 'info',
      comments: options.comments,
      created: now,
      last_updated: now,
    };
    this.model.journal.set(rec.id, rec);
    this.#record(this.#seedCtx(), 'create', 'extras.journalentry', rec.id, null, this.model.snapshot('extras.journalentry', rec.id), {
      type: 'dcim.device',
      id: options.deviceId,
    });
    return rec.id;
  }

  /** Adds a switch (a device with role switch). Answers its id. */
  addSwitch(name: string): number {
    return this.addDevice({ name, role: 'switch', serial: `SW-${name}` });
  }

  /** Cables interface `a` to interface `b` (A and B ends). Answers the cable id. */
  cable(aInterfaceId: number, bInterfaceId: number, options: { label?: string; status?: 'connected' | 'planned' | 'decommissioning' } = {}): number {
    const a = this.model.interfaces.get(aInterfaceId);
    const b = this.model.interfaces.get(bInterfaceId);
    if (!a || !b) throw new Error(`fake-netbox: cable needs two existing interfaces (${aInterfaceId}, ${bInterfaceId})`);
    if (a.cable !== null || b.cable !== null) throw new Error('fake-netbox: an interface can hold only one cable');
    const now = this.model.clock.tick().iso;
    const cable: CableRec = {
      id: this.model.nextId('cable'),
      a: [a.id],
      b: [b.id],
      status: options.status ?? 'connected',
      label: options.label ?? '',
      description: '',
      comments: '',
      created: now,
      last_updated: now,
    };
    this.model.cables.set(cable.id, cable);
    const ctx = this.#seedCtx();
    this.#record(ctx, 'create', 'dcim.cable', cable.id, null, this.model.snapshot('dcim.cable', cable.id));
    for (const [iface, end] of [
      [a, 'A'],
      [b, 'B'],
    ] as const) {
      const pre = this.model.snapshot('dcim.interface', iface.id);
      iface.cable = cable.id;
      iface.cable_end = end;
      iface.last_updated = now;
      this.#record(ctx, 'update', 'dcim.interface', iface.id, pre, this.model.snapshot('dcim.interface', iface.id), {
        type: 'dcim.device',
        id: iface.device,
      });
    }
    return cable.id;
  }

  /**
   * Cables a node's interface to a port of a switch (both created when missing): the switch-port
   * fact an LLDP check compares with. Answers the ids.
   */
  cableToSwitchPort(
    interfaceId: number,
    options: { switchName: string; port: string; label?: string },
  ): {
    cableId: number;
    switchId: number;
    switchPortId: number;
  } {
    const switchId = [...this.model.devices.values()].find((d) => d.name === options.switchName)?.id ?? this.addSwitch(options.switchName);
    const switchPortId =
      [...this.model.interfaces.values()].find((i) => i.device === switchId && i.name === options.port)?.id ??
      this.addInterface({ deviceId: switchId, name: options.port, type: '10gbase-x-sfpp' });
    const cableOptions = options.label === undefined ? {} : { label: options.label };
    return { cableId: this.cable(switchPortId, interfaceId, cableOptions), switchId, switchPortId };
  }

  /**
   * Sets custom fields on a device "as another user": the same validation, merge and changelog
   * record as a PATCH by that user's token (the user is created if needed).
   */
  setCustomFieldAs(username: string, deviceId: number, values: Record<string, unknown>, message = ''): void {
    const user = this.addUser(username);
    const answer = this.#patchDevice({ ...this.#seedCtx(user), message }, deviceId, { custom_fields: values });
    if (answer.status !== 200) throw new Error(`fake-netbox: setCustomFieldAs refused: ${JSON.stringify(answer.body)}`);
  }

  /** "The changelog lost the record": drops every ObjectChange of an object. Answers how many. */
  dropChangelog(objectType: string, objectId: number, which: (change: ChangeRec) => boolean = () => true): number {
    let n = 0;
    for (const [id, c] of this.model.changes) {
      if (c.changed_object_type === objectType && c.changed_object_id === objectId && which(c)) {
        this.model.changes.delete(id);
        n++;
      }
    }
    return n;
  }

  /** A device as the API would answer it. */
  device(id: number): Record<string, unknown> {
    const d = this.model.devices.get(id);
    if (!d) throw new Error(`fake-netbox: no device ${id}`);
    return this.model.device(this.#origin, d);
  }

  /** ObjectChanges (as the API answers them), oldest first. */
  changes(filter: { type?: string; id?: number } = {}): Array<Record<string, unknown>> {
    return [...this.model.changes.values()]
      .filter((c) => (filter.type === undefined || c.changed_object_type === filter.type) && (filter.id === undefined || c.changed_object_id === filter.id))
      .sort((a, b) => a.micros - b.micros || a.id - b.id)
      .map((c) => this.model.objectChange(this.#origin, c));
  }

  // ---- fault injection -------------------------------------------------------------------------

  /** The next `count` matching requests are answered with a failure (default 502). */
  failNext(count: number, options: FailOptions = {}): void {
    this.#faults.push({ kind: 'fail', options, left: count, ...match(options) });
  }

  /** The next `count` matching requests get their connection closed without an answer. */
  closeNext(count: number, options: FaultMatch & { afterHandling?: boolean } = {}): void {
    this.#faults.push({ kind: 'close', afterHandling: options.afterHandling ?? false, left: count, ...match(options) });
  }

  /** The next `count` matching requests are answered `ms` late. */
  delayNext(count: number, ms: number, options: FaultMatch = {}): void {
    this.#delays.push({ left: count, ms, ...match(options) });
  }

  clearFaults(): void {
    this.#faults = [];
    this.#delays = [];
  }

  // ---- HTTP --------------------------------------------------------------------------------------

  async #onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const origin = `http://${req.headers.host ?? this.#origin.slice(7)}`;
    const url = new URL(req.url ?? '/', origin);
    const rawAuth = req.headers.authorization;
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.search,
      authScheme: rawAuth ? (rawAuth.trim().split(/\s+/)[0] ?? '') : null,
      outcome: 'pending',
    };
    this.requests.push(record);
    const bodyText = await readBody(req);

    const delay = take(this.#delays, method, url.pathname);
    if (delay) await this.#wait(delay.ms);
    if (res.destroyed) {
      record.outcome = 'closed';
      // The client gave up; like a real server, the request is still handled.
    }
    const fault = take(this.#faults, method, url.pathname);
    const faultFirst = fault && !(fault.kind === 'close' ? fault.afterHandling : fault.options.afterHandling);
    if (fault && faultFirst) return this.#applyFault(fault, res, record);
    const answer = this.#route(method, url, origin, bodyText, rawAuth);
    if (fault) return this.#applyFault(fault, res, record);
    if (res.destroyed) return;
    const headers: Record<string, string> = {
      'Content-Type': answer.contentType ?? 'application/json',
      'API-Version': this.version.split('.').slice(0, 2).join('.'),
      'X-Request-ID': randomUUID(),
      Vary: 'Accept, Cookie, Origin',
      ...(answer.headers ?? {}),
    };
    record.outcome = answer.status;
    res.writeHead(answer.status, headers);
    res.end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
  }

  #applyFault(fault: Fault, res: http.ServerResponse, record: RecordedRequest): void {
    if (fault.kind === 'close') {
      record.outcome = 'closed';
      res.socket?.destroy();
      return;
    }
    const status = fault.options.status ?? 502;
    const body =
      fault.options.body ??
      (status === 500
        ? JSON.stringify({ error: 'Internal server error', exception: 'OperationalError', netbox_version: this.version, python_version: '3.12.3' })
        : `<html>\r\n<head><title>${status} Bad Gateway</title></head>\r\n<body>\r\n<center><h1>${status} Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`);
    const contentType = fault.options.contentType ?? (status === 500 ? 'application/json' : 'text/html');
    record.outcome = status;
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': contentType });
    res.end(body);
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#timers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      this.#timers.add(entry);
    });
  }

  #route(method: string, url: URL, origin: string, bodyText: string, rawAuth: string | undefined): Answer {
    const path = url.pathname;
    if (!path.startsWith('/api/')) return html404(path);
    if (path === '/api/users/tokens/provision/' && method === 'POST') return this.#provision(origin, bodyText);

    const m =
      /^\/api\/(status|dcim\/devices|dcim\/interfaces|dcim\/mac-addresses|dcim\/cables|extras\/journal-entries|core\/object-changes)\/(?:(\d+)\/)?$/.exec(path);
    if (!m) {
      const withoutSlash = /^\/api\/[a-z/-]+[^/]$/.test(path);
      if (withoutSlash && method === 'GET') {
        // Django's APPEND_SLASH: a relative Location, the query kept, an empty text/html body.
        return { status: 301, body: undefined, headers: { Location: `${path}/${url.search}` }, raw: '', contentType: 'text/html; charset=utf-8' };
      }
      return html404(path);
    }
    const resource = m[1]!;
    const id = m[2] === undefined ? undefined : Number(m[2]);

    // DRF: authentication and permissions come before the method and the object lookup.
    const auth = this.#authenticate(rawAuth);
    if ('error' in auth) return detail(403, auth.error);
    if (auth.user === null) return detail(403, NOT_PROVIDED);
    const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    if (unsafe && !auth.token.writeEnabled) return detail(403, NETBOX_NO_PERMISSION);
    // Object permissions (NetBox's ObjectPermission via TokenPermissions) are checked before the
    // method is considered: POST to the read-only changelog without add permission is 403, not 405.
    const needed = requiredPermission(method, path);
    if (needed && !this.#permitted(auth.user, needed.action, needed.objectType)) return detail(403, NETBOX_NO_PERMISSION);

    let body: unknown;
    if (unsafe) {
      try {
        body = bodyText === '' ? {} : JSON.parse(bodyText);
      } catch (err) {
        return detail(400, `JSON parse error - ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const ctx: Ctx = { origin, user: auth.user, requestId: randomUUID(), message: '' };
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const msg = (body as Record<string, unknown>)['changelog_message'];
      if (typeof msg === 'string') ctx.message = msg.slice(0, 200);
    }

    if (resource === 'status') {
      if (method !== 'GET') return notAllowed(method);
      return json(200, {
        'django-version': '5.2.7',
        hostname: 'fake-netbox',
        // NetBox 4.5.10's list (status.json), with the versions it reported.
        installed_apps: {
          django_filters: '25.1',
          django_prometheus: '2.5.0',
          django_rq: '4.2.0',
          django_tables2: '3.0.1',
          drf_spectacular: '0.30.0',
          mptt: '0.18.0',
          rest_framework: '3.18.3',
          social_django: '6.0.1',
          taggit: '6.1.0',
          timezone_field: '7.2.2',
        },
        'netbox-version': this.version,
        'netbox-full-version': `${this.version}-fake`,
        plugins: {},
        'python-version': '3.12.3',
        'rq-workers-running': 1,
      });
    }

    const brief = ['true', 'True', '1'].includes(url.searchParams.get('brief') ?? '');
    const listOrGet = (
      endpoint: string,
      all: () => object[],
      getOne: (n: number) => object | undefined,
      render: (o: never) => unknown,
      renderBrief: ((o: never) => unknown) | undefined,
      modelName: string,
      filters: Parameters<typeof applyFilters>[2],
      ordering: { allowed: string[]; fallback: (a: never, b: never) => number },
    ): Answer => {
      if (method !== 'GET') return notAllowed(method);
      if (id !== undefined) {
        const o = getOne(id);
        return o === undefined ? detail(404, `No ${modelName} matches the given query.`) : json(200, render(o as never));
      }
      const f = applyFilters(endpoint, url.searchParams, filters, this.model);
      if (f.unsupported) return detail(400, f.unsupported);
      if (Object.keys(f.errors).length > 0) return json(400, f.errors);
      const matching = all().filter((o) => f.preds.every((p) => p(o)));
      const ordered = applyOrdering(matching, url.searchParams.get('ordering'), ordering.allowed, ordering.fallback as (a: object, b: object) => number);
      const page = paginate(ordered, url, pageParams(url.searchParams, this.paginateCount, this.maxPageSize));
      const r = brief && renderBrief ? renderBrief : render;
      return json(200, { ...page, results: page.results.map((o) => r(o as never)) });
    };

    const o = origin;
    switch (resource) {
      case 'dcim/devices':
        if (method === 'PATCH' && id !== undefined) return this.#patchDevice(ctx, id, body);
        if (method === 'POST' || method === 'PUT' || method === 'DELETE' || (method === 'PATCH' && id === undefined)) {
          return notImplemented(method, path);
        }
        return listOrGet(
          'devices',
          () => [...this.model.devices.values()],
          (n) => this.model.devices.get(n),
          (d: DeviceRec) => this.model.device(o, d),
          (d: DeviceRec) => this.model.deviceBrief(o, d),
          'Device',
          deviceFilters(this.model) as never,
          {
            allowed: ['id', 'name', 'serial', 'status', 'created', 'last_updated'],
            fallback: (a: DeviceRec, b: DeviceRec) => compare(a.name, b.name) || a.id - b.id,
          },
        );
      case 'dcim/interfaces':
        if (method === 'PATCH' && id !== undefined) return this.#patchInterface(ctx, id, body);
        if (method !== 'GET') return notImplemented(method, path);
        return listOrGet(
          'interfaces',
          () => [...this.model.interfaces.values()],
          (n) => this.model.interfaces.get(n),
          (i: InterfaceRec) => this.model.interface(o, i),
          (i: InterfaceRec) => this.model.interfaceBrief(o, i),
          'Interface',
          interfaceFilters() as never,
          {
            allowed: ['id', 'name', 'device', 'created'],
            fallback: (a: InterfaceRec, b: InterfaceRec) => this.#byDevice(a.device, b.device) || compare(a.name, b.name) || a.id - b.id,
          },
        );
      case 'dcim/mac-addresses':
        if (method === 'POST' && id === undefined) return this.#postMac(ctx, body);
        if (method !== 'GET') return notImplemented(method, path);
        return listOrGet(
          'mac-addresses',
          () => [...this.model.macs.values()],
          (n) => this.model.macs.get(n),
          (m: MacRec) => this.model.mac(o, m),
          (m: MacRec) => this.model.macBrief(o, m),
          'MACAddress',
          macFilters() as never,
          { allowed: ['id', 'mac_address', 'created'], fallback: (a: MacRec, b: MacRec) => compare(a.mac_address, b.mac_address) || a.id - b.id },
        );
      case 'dcim/cables':
        if (method !== 'GET') return notImplemented(method, path);
        return listOrGet(
          'cables',
          () => [...this.model.cables.values()],
          (n) => this.model.cables.get(n),
          (c: CableRec) => this.model.cable(o, c),
          (c: CableRec) => this.model.cableBrief(o, c),
          'Cable',
          cableFilters() as never,
          { allowed: ['id', 'label', 'created'], fallback: (a: CableRec, b: CableRec) => a.id - b.id },
        );
      case 'extras/journal-entries':
        if (method === 'POST' && id === undefined) return this.#postJournal(ctx, body);
        if (method !== 'GET') return notImplemented(method, path);
        return listOrGet(
          'journal-entries',
          () => [...this.model.journal.values()],
          (n) => this.model.journal.get(n),
          (j: JournalRec) => this.model.journalEntry(o, j),
          (j: JournalRec) => this.model.journalBrief(o, j),
          'JournalEntry',
          journalFilters() as never,
          { allowed: ['id', 'created', 'kind'], fallback: (a: JournalRec, b: JournalRec) => compare(b.created, a.created) || b.id - a.id },
        );
      case 'core/object-changes':
        // ReadOnlyModelViewSet: writes are 405, after authentication.
        return listOrGet(
          'object-changes',
          () => [...this.model.changes.values()],
          (n) => this.model.changes.get(n),
          (c: ChangeRec) => this.model.objectChange(o, c),
          undefined,
          'ObjectChange',
          changeFilters() as never,
          // ObjectChange.Meta.ordering = ['-time']
          {
            allowed: ['id', 'time', 'user_name', 'action', 'changed_object_id', 'request_id'],
            fallback: (a: ChangeRec, b: ChangeRec) => b.micros - a.micros || b.id - a.id,
          },
        );
      default:
        return html404(path);
    }
  }

  /** Interface.Meta.ordering = ('device', …): the device's own ordering, (name, pk). */
  #byDevice(a: number, b: number): number {
    if (a === b) return 0;
    return compare(this.model.devices.get(a)?.name, this.model.devices.get(b)?.name) || a - b;
  }

  // ---- authentication (netbox/netbox/api/authentication.py, 4.5+) -----------------------------------

  #authenticate(header: string | undefined): { user: UserRec; token: TokenRec } | { user: null } | { error: string } {
    const parts = (header ?? '')
      .trim()
      .split(/\s+/)
      .filter((p) => p !== '');
    if (parts.length === 0) return { user: null };
    if (!['token', 'bearer'].includes(parts[0]!.toLowerCase())) return { user: null }; // unrecognized scheme: ignored
    if (parts.length !== 2) {
      return { error: 'Invalid authorization header: Must be in the form "Bearer <key>.<token>" or "Token <token>"' };
    }
    const value = parts[1]!;
    const version = value.startsWith('nbt_') ? 2 : 1;
    let token: TokenRec | undefined;
    if (version === 1) {
      token = [...this.model.tokens.values()].find((t) => t.version === 1 && t.secret === value);
    } else {
      const rest = value.slice(4);
      const dot = rest.indexOf('.');
      if (dot < 0) {
        return {
          error: "Invalid authorization header: Could not parse key from v2 token. Did you mean to use 'Token' instead of 'Bearer'?",
        };
      }
      const key = rest.slice(0, dot);
      const secret = rest.slice(dot + 1);
      token = [...this.model.tokens.values()].find((t) => t.version === 2 && t.key === key);
      if (token && token.secret !== secret) token = undefined; // same answer as an unknown key: no key enumeration
    }
    if (!token) return { error: `Invalid v${version} token` };
    if (!token.enabled) return { error: 'Token disabled' };
    if (token.expires !== null && Date.parse(token.expires) < Date.now()) return { error: 'Token expired' };
    const user = this.model.users.get(token.userId)!;
    return { user, token };
  }

  /** `POST /api/users/tokens/provision/` {username, password} (no token needed). */
  #provision(origin: string, bodyText: string): Answer {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(bodyText || '{}') as Record<string, unknown>;
    } catch (err) {
      return detail(400, `JSON parse error - ${err instanceof Error ? err.message : String(err)}`);
    }
    const errors: Errors = {};
    if (typeof body['username'] !== 'string') errors['username'] = ['This field is required.'];
    if (typeof body['password'] !== 'string') errors['password'] = ['This field is required.'];
    if (Object.keys(errors).length) return json(400, errors);
    const user = [...this.model.users.values()].find((u) => u.username === body['username']);
    if (!user || user.password !== body['password']) return detail(403, 'Invalid username/password');
    const version = body['version'] === 1 ? 1 : 2;
    const t = this.#createToken(user, { version });
    return json(201, {
      id: t.id,
      url: `${origin}/api/users/tokens/${t.id}/`,
      display_url: `${origin}/users/tokens/${t.id}/`,
      display: version === 2 ? t.key : `${'*'.repeat(34)}${t.secret.slice(-6)}`,
      version,
      user: this.model.userBrief(origin, user),
      // NetBox 4.5: a v1 token has no key; the plaintext is in `token` (token-v1-format.json).
      key: version === 2 ? t.key : null,
      created: t.created,
      expires: t.expires,
      last_used: null,
      enabled: t.enabled,
      write_enabled: t.writeEnabled,
      description: t.description,
      allowed_ips: [],
      token: t.secret,
    });
  }

  // ---- writes ------------------------------------------------------------------------------------

  #record(
    ctx: Ctx,
    action: ChangeRec['action'],
    type: string,
    id: number,
    pre: Record<string, unknown> | null,
    post: Record<string, unknown> | null,
    related?: { type: string; id: number },
  ): void {
    // CHANGELOG_SKIP_EMPTY_CHANGES (default True): an update that changes nothing is not recorded.
    if (action === 'update' && JSON.stringify(pre) === JSON.stringify(post)) return;
    // A creation's prechange_data is {} in NetBox 4.5, not null (object-changes-action.json).
    if (action === 'create' && pre === null) pre = {};
    const { iso, micros } = this.model.clock.tick();
    const change: ChangeRec = {
      id: this.model.nextId('change'),
      time: iso,
      micros,
      user: ctx.user.id,
      user_name: ctx.user.username,
      request_id: ctx.requestId,
      action,
      changed_object_type: type,
      changed_object_id: id,
      related_object_type: related?.type ?? null,
      related_object_id: related?.id ?? null,
      object_repr: this.model.reprOf(type, id),
      message: ctx.message,
      prechange_data: pre,
      postchange_data: post,
    };
    this.model.changes.set(change.id, change);
  }

  /** Unknown custom fields (extras/api/customfields.py, 4.5.8+). */
  #customFieldErrors(cf: unknown): Record<string, unknown> | undefined {
    if (cf === null || typeof cf !== 'object' || Array.isArray(cf)) {
      return {
        custom_fields: ['Invalid data format. Custom field data must be passed as a dictionary mapping field names to their values.'],
      };
    }
    const unknown = Object.keys(cf)
      .filter((k) => !this.model.customFields.has(k))
      .sort();
    if (unknown.length === 0) return undefined;
    return {
      custom_fields: Object.fromEntries(unknown.map((k) => [k, `Custom field '${k}' does not exist for this object type.`])),
    };
  }

  /** CustomFieldsMixin.clean() → CustomField.validate(): the first bad value, as a non-field error. */
  #customFieldValueError(data: Record<string, unknown>): string | undefined {
    for (const [name, value] of Object.entries(data)) {
      const cf = this.model.customFields.get(name);
      if (!cf || value === null || value === '') continue;
      let why: string | undefined;
      if (cf.type === 'text' && typeof value !== 'string') why = 'Value must be a string.';
      if (cf.type === 'integer' && !Number.isInteger(value)) why = 'Value must be an integer.';
      if (cf.type === 'boolean' && ![true, false, 1, 0].includes(value as never)) why = 'Value must be true or false.';
      if (cf.type === 'select' && !(typeof value === 'string' && (cf.choices ?? []).includes(value))) {
        why = `Invalid choice (${String(value)}) for choice set ${cf.choiceSet ?? cf.name}.`;
      }
      if (why) return `Invalid value for custom field '${name}': ${why}`;
    }
    return undefined;
  }

  /** NetBox's JSON answer to an exception in a view (a 500), as for a list body on an object URL. */
  #serverError(exception: string, error: string): Answer {
    return json(500, { error, exception, netbox_version: this.version, python_version: '3.14.10' });
  }

  #patchDevice(ctx: Ctx, id: number, body: unknown): Answer {
    const d = this.model.devices.get(id);
    if (!d) return detail(404, 'No Device matches the given query.');
    if (Array.isArray(body)) return this.#serverError('NotImplementedError', MANY_UPDATE_ERROR);
    if (body === null || typeof body !== 'object') {
      return json(400, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
    }
    const b = body as Record<string, unknown>;
    const errors: Record<string, unknown> = {};
    const next = structuredClone(d);
    stringField(b, 'name', 64, (v) => (next.name = v), errors, false);
    stringField(b, 'serial', 50, (v) => (next.serial = v), errors, false);
    stringField(b, 'description', 200, (v) => (next.description = v), errors, false);
    stringField(b, 'comments', 100_000, (v) => (next.comments = v), errors, false);
    stringField(b, 'asset_tag', 50, (v) => (next.asset_tag = v), errors, true);
    if ('status' in b) {
      const s = b['status'];
      if (s === '' || s === null) errors['status'] = ['This field may not be blank.'];
      else if (typeof s === 'object') errors['status'] = ['Value must be passed directly (e.g. "foo": 123); do not use a dictionary or list.'];
      else if (typeof s !== 'string' || !(s in STATUS_LABELS)) errors['status'] = [`${String(s)} is not a valid choice.`];
      else next.status = s;
    }
    if ('primary_ip4' in b) {
      const v = b['primary_ip4'];
      const ipId = typeof v === 'object' && v !== null ? (v as { id?: unknown }).id : v;
      if (v === null) next.primary_ip4 = null;
      else if (typeof ipId !== 'number' || !this.model.ips.has(ipId)) {
        errors['primary_ip4'] = [`Related object not found using the provided numeric ID: ${String(ipId)}`];
      } else next.primary_ip4 = ipId;
    }
    if ('custom_fields' in b) {
      const cfErrors = this.#customFieldErrors(b['custom_fields']);
      if (cfErrors) Object.assign(errors, cfErrors);
      // CustomFieldsDataField.to_internal_value: {**instance.custom_field_data, **data}
      else next.custom_field_data = { ...d.custom_field_data, ...structuredClone(b['custom_fields'] as Record<string, unknown>) };
    }
    if (Object.keys(errors).length > 0) return json(400, errors);
    const valueError = this.#customFieldValueError(next.custom_field_data);
    if (valueError) return json(400, { __all__: [valueError] });

    const pre = this.model.snapshot('dcim.device', id);
    Object.assign(d, next, { last_updated: this.model.clock.tick().iso });
    this.#record(ctx, 'update', 'dcim.device', id, pre, this.model.snapshot('dcim.device', id));
    return json(200, this.model.device(ctx.origin, d));
  }

  #patchInterface(ctx: Ctx, id: number, body: unknown): Answer {
    const i = this.model.interfaces.get(id);
    if (!i) return detail(404, 'No Interface matches the given query.');
    if (Array.isArray(body)) return this.#serverError('NotImplementedError', MANY_UPDATE_ERROR);
    if (body === null || typeof body !== 'object') {
      return json(400, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
    }
    const b = body as Record<string, unknown>;
    const errors: Record<string, unknown> = {};
    const next = structuredClone(i);
    stringField(b, 'description', 200, (v) => (next.description = v), errors, false);
    stringField(b, 'label', 64, (v) => (next.label = v), errors, false);
    for (const flag of ['enabled', 'mgmt_only', 'mark_connected'] as const) {
      if (flag in b) {
        if (typeof b[flag] !== 'boolean') errors[flag] = ['Must be a valid boolean.'];
        else next[flag] = b[flag] as boolean;
      }
    }
    if ('primary_mac_address' in b) {
      const v = b['primary_mac_address'];
      const macId = typeof v === 'object' && v !== null ? (v as { id?: unknown }).id : v;
      if (v === null) next.primary_mac_address = null;
      else if (typeof macId !== 'number' || !this.model.macs.has(macId)) {
        errors['primary_mac_address'] = [`Related object not found using the provided numeric ID: ${String(macId)}`];
      } else next.primary_mac_address = macId;
    }
    if (Object.keys(errors).length > 0) return json(400, errors);
    if (next.primary_mac_address !== null && next.primary_mac_address !== i.primary_mac_address) {
      // dcim/models/device_components.py Interface.clean(): keyed primary_mac_address
      // (interface-patch-primary-mac-other-interface.json). A MAC assigned to nothing is accepted
      // (interface-patch-primary-mac-unassigned.json); it stays out of the interface's mac_addresses.
      const mac = this.model.macs.get(next.primary_mac_address)!;
      if (mac.assigned_object_type !== null && (mac.assigned_object_type !== 'dcim.interface' || mac.assigned_object_id !== i.id)) {
        const other = this.model.reprOf(mac.assigned_object_type, mac.assigned_object_id ?? 0);
        return json(400, { primary_mac_address: [`MAC address ${mac.mac_address} is assigned to a different interface (${other}).`] });
      }
    }
    const pre = this.model.snapshot('dcim.interface', id);
    Object.assign(i, next, { last_updated: this.model.clock.tick().iso });
    this.#record(ctx, 'update', 'dcim.interface', id, pre, this.model.snapshot('dcim.interface', id), { type: 'dcim.device', id: i.device });
    return json(200, this.model.interface(ctx.origin, i));
  }

  #postMac(ctx: Ctx, body: unknown): Answer {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return notImplemented('POST', 'bulk create');
    const b = body as Record<string, unknown>;
    const errors: Errors = {};
    let mac: string | null = null;
    if (!('mac_address' in b)) errors['mac_address'] = ['This field is required.'];
    else {
      mac = normalizeMac(b['mac_address']);
      if (mac === null) errors['mac_address'] = [`Invalid MAC address format: ${String(b['mac_address'])}`];
    }
    const type = b['assigned_object_type'] ?? null;
    const objId = b['assigned_object_id'] ?? null;
    if (type !== null) {
      if (typeof type !== 'string' || !/^[a-z_]+\.[a-z_]+$/.test(type)) {
        errors['assigned_object_type'] = ["Invalid value. Specify a content type as '<app_label>.<model_name>'."];
      } else if (type !== 'dcim.interface' && type !== 'virtualization.vminterface') {
        errors['assigned_object_type'] = [`Invalid content type: ${type}`];
      }
    }
    if (objId !== null && (typeof objId !== 'number' || !Number.isInteger(objId) || objId < 0)) {
      errors['assigned_object_id'] = ['A valid integer is required.'];
    }
    if (Object.keys(errors).length) return json(400, errors);
    if (type === 'dcim.interface' && objId !== null && !this.model.interfaces.has(objId as number)) {
      // mac-address-post-unknown-interface.json
      return json(400, { assigned_object_id: [`Related object not found using the provided value: ${String(objId)}.`] });
    }
    if ((type === null) !== (objId === null)) {
      // fake-netbox approximation of the GenericForeignKey validation
      return json(400, { __all__: [`Invalid assigned object: ${String(type)} ${String(objId)}`] });
    }
    if (type === 'virtualization.vminterface') return notImplemented('POST', 'a MAC on a VM interface');
    const now = this.model.clock.tick().iso;
    const rec: MacRec = {
      id: this.model.nextId('mac'),
      mac_address: mac!,
      assigned_object_type: type as string | null,
      assigned_object_id: objId as number | null,
      description: typeof b['description'] === 'string' ? (b['description'] as string) : '',
      comments: typeof b['comments'] === 'string' ? (b['comments'] as string) : '',
      created: now,
      last_updated: now,
    };
    this.model.macs.set(rec.id, rec);
    const related = rec.assigned_object_type === null ? undefined : { type: rec.assigned_object_type, id: rec.assigned_object_id! };
    this.#record(ctx, 'create', 'dcim.macaddress', rec.id, null, this.model.snapshot('dcim.macaddress', rec.id), related);
    const out = this.model.mac(ctx.origin, rec);
    return json(201, out, { Location: String(out['url']) });
  }

  #postJournal(ctx: Ctx, body: unknown): Answer {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return notImplemented('POST', 'bulk create');
    const b = body as Record<string, unknown>;
    const errors: Errors = {};
    const type = b['assigned_object_type'];
    if (type === undefined) errors['assigned_object_type'] = ['This field is required.'];
    else if (typeof type !== 'string' || !/^[a-z_]+\.[a-z_]+$/.test(type)) {
      errors['assigned_object_type'] = ["Invalid value. Specify a content type as '<app_label>.<model_name>'."];
    } else if (!(type in FakeNetBoxModel.apiPath)) errors['assigned_object_type'] = [`Invalid content type: ${type}`];
    const objId = b['assigned_object_id'];
    if (objId === undefined) errors['assigned_object_id'] = ['This field is required.'];
    else if (typeof objId !== 'number' || !Number.isInteger(objId) || objId < 0) errors['assigned_object_id'] = ['A valid integer is required.'];
    const comments = b['comments'];
    if (comments === undefined) errors['comments'] = ['This field is required.'];
    else if (typeof comments !== 'string') errors['comments'] = ['Not a valid string.'];
    else if (comments.trim() === '') errors['comments'] = ['This field may not be blank.'];
    let kind = 'info';
    if ('kind' in b) {
      const k = b['kind'];
      if (typeof k === 'object' && k !== null) errors['kind'] = ['Value must be passed directly (e.g. "foo": 123); do not use a dictionary or list.'];
      else if (typeof k !== 'string' || !['info', 'success', 'warning', 'danger'].includes(k)) errors['kind'] = [`${String(k)} is not a valid choice.`];
      else kind = k;
    }
    let createdBy = ctx.user.id; // CurrentUserDefault
    if ('created_by' in b) {
      const u = b['created_by'];
      if (u === null) createdBy = null as unknown as number;
      else if (typeof u !== 'number' || !this.model.users.has(u)) errors['created_by'] = [`Invalid pk "${String(u)}" - object does not exist.`];
      else createdBy = u;
    }
    if (Object.keys(errors).length) return json(400, errors);
    if (!this.model.exists(type as string, objId as number)) {
      return json(400, { non_field_errors: [`Invalid assigned_object: ${contentTypeLabel(type as string)} ID ${objId as number}`] });
    }
    const now = this.model.clock.tick().iso;
    const rec: JournalRec = {
      id: this.model.nextId('journal'),
      assigned_object_type: type as string,
      assigned_object_id: objId as number,
      created_by: createdBy,
      kind,
      comments: comments as string,
      created: now,
      last_updated: now,
    };
    this.model.journal.set(rec.id, rec);
    this.#record(ctx, 'create', 'extras.journalentry', rec.id, null, this.model.snapshot('extras.journalentry', rec.id), {
      type: rec.assigned_object_type,
      id: rec.assigned_object_id,
    });
    const out = this.model.journalEntry(ctx.origin, rec);
    return json(201, out, { Location: String(out['url']) });
  }
}

const MANY_UPDATE_ERROR =
  'Serializers with many=True do not support multiple update by default, only multiple create. For updates it is unclear how to ' +
  'deal with insertions and deletions. If you need to support multiple update, use a `ListSerializer` class and override ' +
  '`.update()` so you can specify the behavior exactly.';

const STATUS_LABELS: Record<string, true> = {
  offline: true,
  active: true,
  planned: true,
  staged: true,
  failed: true,
  inventory: true,
  decommissioning: true,
};

function stringField(
  b: Record<string, unknown>,
  name: string,
  max: number,
  set: (v: string) => void,
  errors: Record<string, unknown>,
  nullable: boolean,
): void {
  if (!(name in b)) return;
  const v = b[name];
  if (v === null) {
    if (nullable) set(null as unknown as string);
    else errors[name] = ['This field may not be null.'];
  } else if (typeof v !== 'string') errors[name] = ['Not a valid string.'];
  else if (v.length > max) errors[name] = [`Ensure this field has no more than ${max} characters.`];
  else set(v);
}

function match(options: FaultMatch): FaultMatch {
  const out: FaultMatch = {};
  if (options.method !== undefined) out.method = options.method.toUpperCase();
  if (options.path !== undefined) out.path = options.path;
  return out;
}

function take<T extends FaultMatch & { left: number }>(list: T[], method: string, path: string): T | undefined {
  const f = list.find((x) => x.left > 0 && (x.method === undefined || x.method === method) && (x.path === undefined || path.startsWith(x.path)));
  if (f) f.left--;
  return f;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function notAllowed(method: string): Answer {
  return detail(405, `Method "${method}" not allowed.`);
}

function notImplemented(method: string, what: string): Answer {
  return detail(501, `fake-netbox: ${method} ${what} is not implemented by this fake`);
}

function html404(path: string): Answer {
  return {
    status: 404,
    body: undefined,
    contentType: 'text/html; charset=utf-8',
    raw: `<!DOCTYPE html><html lang="en"><head><title>Page Not Found</title></head><body><h1>Page Not Found</h1><p>${path}</p></body></html>`,
  };
}
