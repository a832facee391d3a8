/** What a code unlocks: a Talos node's config (`/v1/config/<code>`), or a disk-image node's seed (`/v1/seed/<code>`). */
export type DocKind = 'config' | 'seed';

/** A rendered config or seed waiting for its node, held in memory only: a restart drops every one. */
export interface HeldConfig {
  sha256: string;
  deviceId: string;
  hostname: string;
  kind: DocKind;
  contentType: string;
  body: Buffer;
  expiresAt: number;
  /** A fetch is being answered; a second at the same time waits for the first's outcome. */
  inFlight: boolean;
  /**
   * Where an answer the peer did not acknowledge went: the one more fetch it stays for must come
   * from there. Null until then.
   */
  unacknowledgedTo: string | null;
}

/**
 * The configs waiting to be fetched, by the SHA-256 of their code. Nothing here is written to
 * disk: a config holds the node's bootstrap token and the cluster's certificates, and the runbook
 * says what a restart does to a waiting config (it is gone; the run is set again).
 */
export class ConfigStore {
  private readonly held = new Map<string, HeldConfig>();

  constructor(private readonly now: () => number = Date.now) {}

  hold(c: Omit<HeldConfig, 'inFlight' | 'unacknowledgedTo'>): void {
    this.dropDevice(c.deviceId);
    this.held.set(c.sha256, { ...c, inFlight: false, unacknowledgedTo: null });
  }

  /** One config per device: a newer code voids the older one, and with it its config. */
  dropDevice(deviceId: string): void {
    for (const [sha, old] of this.held) if (old.deviceId === deviceId) this.held.delete(sha);
  }

  /** The config for a code's hash; an expired one is dropped and reported as such. */
  get(sha256: string): HeldConfig | 'expired' | null {
    const c = this.held.get(sha256);
    if (!c) return null;
    if (this.now() > c.expiresAt) {
      this.held.delete(sha256);
      return 'expired';
    }
    return c;
  }

  drop(sha256: string): void {
    this.held.delete(sha256);
  }

  /** Drops expired configs (for the waiting gauge) and counts what is left. */
  waiting(): number {
    const now = this.now();
    for (const [sha, c] of this.held) if (now > c.expiresAt) this.held.delete(sha);
    return this.held.size;
  }
}
