import type { JournalLine } from '../journal-line.js';
import { INSTALL_LINES } from './lines.js';
import { errorMessage } from '../../shared/errors.js';
import type { Audit } from '../audit.js';
import type { AuditFields } from '../audit-events.js';
import type { Device } from '../inventory/device.js';
import type { RunKind } from '../reconcile/desired.js';
import type { Inventory } from '../inventory/inventory.js';
import type { TargetCluster } from '../kube/target-cluster.js';
import type { Metrics } from '../metrics.js';
import type { LocalStore } from '../state/local-store.js';
import { bootstrapTokenSecret, newBootstrapToken, tokenString } from './bootstrap-token.js';
import { readClassInputs } from './class-inputs.js';
import { readSeedInputs } from './seed-inputs.js';
import { renderSeed } from './seed-render.js';
import type { Payload } from '../../shared/payloads.js';
import { installCodeHash, newInstallCode } from './code.js';
import type { ConfigStore, DocKind } from './config-store.js';
import { renderTalosConfig } from './talos-config.js';
import { waitAcknowledged, type Connection } from './tcp-ack.js';
import { GuessLimit, type GuessVerdict } from './guess-limit.js';

export interface InstallsOptions {
  inventory: Inventory;
  store: LocalStore;
  configs: ConfigStore;
  audit: Audit;
  metrics: Metrics;
  /** FLEET_CONFIG_TTL: how long a rendered config waits for its node. */
  configTtlMs: number;
  /** Where `fleet render-class-inputs` put each class's inputs; needed to install Talos. */
  classInputsDir?: string;
  /** The cluster nodes join: each node's own bootstrap token is created there. */
  target?: TargetCluster;
  /** How long a fetched config may take to be acknowledged whole. */
  ackDeadlineMs?: number;
  readTcp?: () => Promise<string>;
  now?: () => Date;
  /** Wrong codes past their share are refused (429): fleetd's default limits unless given. */
  guesses?: GuessLimit;
}

const NO_CLASS_INPUTS = 'no class inputs are configured (fleet serve --class-inputs)';

/** Bootstrap tokens outlive the config's time to live by this much: a kubelet may start late. */
const TOKEN_GRACE_MS = 4 * 3600_000;

export type Issued = { code: string } | { refused: string };

/** The attested boot a code is answered to. */
export interface AttestedBoot {
  bootId: string;
  mac: string;
  /** The SMBIOS system UUID its report gave, or null. */
  uuid: string | null;
}

export type FetchAnswer =
  | { status: 200; body: Buffer; contentType: string; sha256: string }
  | { status: 404 | 503; reason: string }
  | { status: 429; reason: string; retryAfterS: number };

/** How the journal names what a code unlocks (the runbook's words for a Talos node's). */
const NOUN: Record<DocKind, string> = { config: 'Talos config', seed: 'seed' };

/**
 * Install codes and the configs they unlock. A code is issued only to an attested boot whose run
 * may start (admission decides that); only its SHA-256 is kept, and the node's rendered config is
 * held in memory for FLEET_CONFIG_TTL and served once.
 */
export class Installs {
  private readonly o: InstallsOptions;
  private readonly now: () => Date;
  private readonly guesses: GuessLimit;

  constructor(opts: InstallsOptions) {
    this.o = opts;
    this.now = opts.now ?? (() => new Date());
    this.guesses = opts.guesses ?? new GuessLimit();
  }

  /**
   * The code of this boot for its run (`run` null: the intake's, for the run it starts). A
   * provision first gets what its node will fetch with the code, so that a code is never answered
   * for a run that could not install: for a Talos class, its bootstrap token in the target cluster
   * and its rendered config; for a disk-image class, its seed. A retirement renders nothing.
   */
  async issue(device: Device, boot: AttestedBoot, run: { run: string | null; kind: RunKind }, requestId: string): Promise<Issued> {
    const { audit, metrics } = this.o;
    const at = this.now();
    const cls = device.className ? (await this.o.inventory.classes()).get(device.className) : undefined;
    const line: AuditFields<'fleet.render'> = { request: requestId, node: device.hostname, class: device.className };
    let doc: { kind: DocKind; body: Buffer; contentType: string } | undefined;
    if (run.kind === 'provision' && cls) {
      const rendered = cls.payload === 'talos' ? await this.render(device, boot.mac, at) : await this.renderSeedOf(device, cls.payload, boot, run.run, at);
      if ('refused' in rendered) {
        audit('fleet.render', { ...line, outcome: 'refused', reason: rendered.refused });
        metrics.renderRefused.labels(rendered.reason).inc();
        return { refused: rendered.refused };
      }
      doc = rendered;
    }
    const code = newInstallCode();
    const sha256 = installCodeHash(code);
    const expiresAt = at.getTime() + this.o.configTtlMs;
    // One code per device: this one voids any earlier code and drops what it unlocked.
    this.o.configs.dropDevice(device.id);
    if (doc) {
      this.o.configs.hold({ sha256, deviceId: device.id, hostname: device.hostname, ...doc, expiresAt });
      audit('fleet.render', { ...line, outcome: 'rendered', document: doc.kind, expiresAt: new Date(expiresAt).toISOString() });
    }
    this.o.store.recordInstallCode({ device: device.id, hostname: device.hostname, sha256, bootId: boot.bootId, at: at.toISOString(), run: run.run });
    metrics.codesIssued.inc();
    metrics.watchNode(device.hostname);
    metrics.configsWaiting.set(this.o.configs.waiting());
    return { code };
  }

  /** Why a class's inputs cannot render a node's config or seed now, or null when they can. */
  async classInputsProblem(className: string): Promise<string | null> {
    if (!this.o.classInputsDir) return NO_CLASS_INPUTS;
    const cls = (await this.o.inventory.classes()).get(className);
    try {
      if (cls?.payload === 'talos') await readClassInputs(this.o.classInputsDir, className);
      else await readSeedInputs(this.o.classInputsDir, className);
      return null;
    } catch (err) {
      return errorMessage(err);
    }
  }

  private async renderSeedOf(
    device: Device,
    payload: Exclude<Payload, 'talos'>,
    boot: AttestedBoot,
    run: string | null,
    at: Date,
  ): Promise<{ kind: 'seed'; body: Buffer; contentType: string } | { refused: string; reason: string }> {
    if (!this.o.classInputsDir) return { refused: NO_CLASS_INPUTS, reason: 'no-class-inputs' };
    if (!device.address) return { refused: `${device.hostname} lacks an address`, reason: 'node-values' };
    let inputs;
    try {
      inputs = await readSeedInputs(this.o.classInputsDir, device.className!);
    } catch (err) {
      return { refused: errorMessage(err), reason: 'class-inputs' };
    }
    const seed = renderSeed(payload, inputs, {
      className: device.className!,
      hostname: device.hostname,
      address: device.address,
      mac: boot.mac,
      nodeUuid: boot.uuid,
      run,
      at,
    });
    return { kind: 'seed', ...seed };
  }

  /** `mac` is the one this attestation proved: at a machine's first attestation the inventory has none yet. */
  private async render(
    device: Device,
    mac: string,
    at: Date,
  ): Promise<{ kind: 'config'; body: Buffer; contentType: string } | { refused: string; reason: string }> {
    if (!this.o.classInputsDir) return { refused: NO_CLASS_INPUTS, reason: 'no-class-inputs' };
    if (!device.address || !device.installDisk) return { refused: `${device.hostname} lacks an address or install_disk`, reason: 'node-values' };
    let inputs;
    try {
      inputs = await readClassInputs(this.o.classInputsDir, device.className!);
    } catch (err) {
      return { refused: errorMessage(err), reason: 'class-inputs' };
    }
    let bootstrapToken: string | undefined;
    if (this.o.target) {
      const token = newBootstrapToken();
      try {
        await this.o.target.createSecret(bootstrapTokenSecret(token, device.hostname, new Date(at.getTime() + this.o.configTtlMs + TOKEN_GRACE_MS)));
      } catch (err) {
        return { refused: `create ${device.hostname}'s bootstrap token: ${errorMessage(err)}`, reason: 'bootstrap-token' };
      }
      bootstrapToken = tokenString(token);
    }
    try {
      const text = renderTalosConfig(inputs.base, inputs.network, {
        hostname: device.hostname,
        address: device.address,
        mac,
        installDisk: device.installDisk,
        ...(bootstrapToken ? { bootstrapToken } : {}),
      });
      return { kind: 'config', body: Buffer.from(text), contentType: 'application/yaml' };
    } catch (err) {
      return { refused: errorMessage(err), reason: 'render' };
    }
  }

  /**
   * A fetch of `<config-url>/<code>` (kind config) or `<seed-url>/<code>` (kind seed): what the
   * code unlocks while the device is planned (503 when the inventory cannot say), 404 otherwise,
   * each miss in the device's journal as the runbook words it.
   */
  async fetch(code: string, peer: string, kind: DocKind = 'config'): Promise<FetchAnswer> {
    const { configs, store, metrics } = this.o;
    const what = NOUN[kind];
    const at = this.now().getTime();
    const early = this.guesses.before(peer, at);
    if (early.limited) return this.guessingLimited(peer, kind, early);
    const sha256 = installCodeHash(code);
    const held = configs.get(sha256);
    metrics.configsWaiting.set(configs.waiting());
    // A code unlocks one kind of document: asked under the other route, it is a code fleetd never gave.
    const otherKind = held !== null && held !== 'expired' && held.kind !== kind;
    if (held === null || held === 'expired' || otherKind) {
      const record = otherKind ? null : store.installCodeByHash(sha256);
      if (!record) {
        metrics.configMissing.labels('unknown').inc();
        const guessed = this.guesses.wrong(peer, at);
        if (guessed.limited) return this.guessingLimited(peer, kind, guessed);
        this.o.audit('fleet.config', { peer, document: kind, outcome: 'unknown-code' });
        return { status: 404, reason: 'unknown code' };
      }
      const device = await this.o.inventory.deviceByName(record.hostname).catch(() => null);
      // Served, but the inventory never took the release (still planned): to the runbook that is a
      // missing config, since the node boots its install and asks in vain. A NoCloud seed stays
      // planned until its run reports the seed written, so asked again it was served.
      if (record.servedAt && (device?.status !== 'planned' || (await this.payloadOf(device)) === 'cloud-init-nocloud')) {
        metrics.configRefetched.labels(record.hostname).inc();
        if (device) await this.journalOnce(device, sha256, 'refetched', INSTALL_LINES.refetched(what, record.servedAt, peer));
        return { status: 404, reason: 'served' };
      }
      metrics.configMissing.labels(record.hostname).inc();
      if (device) await this.journalOnce(device, sha256, 'missing', INSTALL_LINES.missing(what, peer));
      return { status: 404, reason: held === 'expired' ? 'expired' : 'none' };
    }
    let device: Device | null;
    try {
      device = await this.o.inventory.deviceByName(held.hostname);
    } catch (err) {
      // NetBox does not answer: the node tries again; the config stays.
      this.o.audit('fleet.config', { peer, node: held.hostname, document: kind, outcome: 'inventory-unavailable', reason: errorMessage(err) });
      return { status: 503, reason: 'the inventory does not answer' };
    }
    if (device?.status !== 'planned') {
      if (device) await this.journalOnce(device, sha256, `status-${device.status}`, INSTALL_LINES.notPlanned(what, device.status));
      return { status: 404, reason: 'not planned' };
    }
    if (held.inFlight) return { status: 503, reason: `a fetch of this ${what} is being answered` };
    if (held.unacknowledgedTo !== null && held.unacknowledgedTo !== peer) {
      await this.journalOnce(device, sha256, `elsewhere:${peer}`, INSTALL_LINES.askedElsewhere(what, peer, held.unacknowledgedTo));
      return { status: 404, reason: 'answered elsewhere' };
    }
    held.inFlight = true;
    return { status: 200, body: held.body, contentType: held.contentType, sha256 };
  }

  /**
   * After a config's or seed's bytes were handed to the connection: it counts as served only when
   * the peer acknowledged every byte; then the device turns active. An answer the peer did not
   * acknowledge leaves it for one more fetch, from that peer's address alone, for a node that lost
   * the answer; a second such answer spends it. So a holder of the code that reads the answer and
   * resets the connection gets it at most twice, and the node then finds it gone.
   */
  async delivered(sha256: string, conn: Connection, peer: string, kind: DocKind = 'config'): Promise<boolean> {
    const { configs, store, metrics } = this.o;
    const acked = await waitAcknowledged(conn, { deadlineMs: this.o.ackDeadlineMs ?? 30_000, ...(this.o.readTcp ? { read: this.o.readTcp } : {}) });
    const held = configs.get(sha256);
    const record = store.installCodeByHash(sha256);
    const device = record ? await this.o.inventory.deviceByName(record.hostname).catch(() => null) : null;
    if (!acked) {
      metrics.configsUnacknowledged.inc();
      const live = held && held !== 'expired' ? held : null;
      const again = live !== null && live.unacknowledgedTo !== null;
      if (live && again) {
        configs.drop(sha256);
        metrics.configsWaiting.set(configs.waiting());
      } else if (live) {
        live.inFlight = false;
        live.unacknowledgedTo = peer;
      }
      const said = (again ? INSTALL_LINES.unacknowledgedAgain : INSTALL_LINES.unacknowledged)(NOUN[kind], peer, kind);
      if (device) await this.o.inventory.journal(device, said.kind, said.message).catch(() => undefined);
      return false;
    }
    configs.drop(sha256);
    store.markServed(sha256, this.now().toISOString());
    metrics.configsServed.inc();
    metrics.configsWaiting.set(configs.waiting());
    if (device) {
      const said = INSTALL_LINES.served(kind, record?.run ?? device.lastRun ?? 'its run', peer);
      await this.o.inventory.journal(device, said.kind, said.message).catch(() => undefined);
      // Fetched in HookOS, a NoCloud seed is not yet on the disk: the run's report of image-to-disk turns it active.
      if (kind === 'seed' && (await this.payloadOf(device)) === 'cloud-init-nocloud') return true;
      try {
        await this.o.inventory.setStatus(device, 'active');
      } catch (err) {
        this.o.audit('fleet.config', {
          peer,
          node: device.hostname,
          document: kind,
          outcome: 'served',
          reason: `the device could not be set active: ${errorMessage(err)}`,
        });
      }
    }
    return true;
  }

  /** A refusal of wrong codes past their share: audited once per holder and window, counted always. */
  private guessingLimited(peer: string, kind: DocKind, v: GuessVerdict & { limited: true }): FetchAnswer {
    this.o.metrics.codeGuessesRefused.labels(v.scope).inc();
    if (v.first)
      this.o.audit('fleet.config', { peer, document: kind, outcome: 'guessing-limited', limitedBy: v.scope, limit: v.limit, retryAfterS: v.retryAfterS });
    return { status: 429, reason: `more than ${v.limit} wrong codes from this ${v.scope === 'total' ? 'verifier' : v.scope}`, retryAfterS: v.retryAfterS };
  }

  private async payloadOf(device: Device): Promise<Payload | undefined> {
    return device.className ? (await this.o.inventory.classes().catch(() => new Map())).get(device.className)?.payload : undefined;
  }

  /** A node that keeps asking writes each line once per code (by the code's hash), not once per try. */
  private readonly journaled = new Set<string>();
  private async journalOnce(device: Device, sha256: string, what: string, said: JournalLine): Promise<void> {
    const key = `${sha256}:${what}`;
    if (this.journaled.has(key)) return;
    this.journaled.add(key);
    await this.o.inventory.journal(device, said.kind, said.message).catch(() => undefined);
  }
}
