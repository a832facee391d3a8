/**
 * Every audit event fleetd and `fleet syslog` write, with when and each field they may carry: the
 * one definition the writers are typed by and docs/reference/audit.md is rendered from. No event
 * has a field for a secret: an install code, a token or a key cannot be handed to one.
 */
interface AuditEventDef {
  /** Who writes it, and when. */
  when: string;
  /** Each field it may carry, and what it holds. */
  fields: Readonly<Record<string, string>>;
}

const REQUEST = "the HTTP request's id, as in fleetd's request log";
const PEER = 'the address the request or datagram came from';
const NODE = "the entry's host name";

export const AUDIT_EVENTS = {
  'attest.verdict': {
    when: "by fleetd, at each attestation's end; of the refusals a peer provokes without a TPM (a start's claimed keys, a finish's unknown or replayed session), the first 8 per peer and minute",
    fields: {
      request: REQUEST,
      serial: 'the SMBIOS serial the machine claims',
      mac: 'the MAC it booted from',
      peer: PEER,
      session: "the attestation session's id",
      stage: '`start` when the start was refused (its claimed keys), absent otherwise',
      eks: 'the hash of each EK the TPM proved, by kind',
      node: `${NODE}, when an entry names the serial`,
      verdict: 'the [verdict](verdicts.md), or `error` when the inventory did not answer (no verdict: the agent tries again)',
      reason: 'why, in words',
      refused: 'for `ek-hash-mismatch`: the kind, the refused hash and the approved one',
      switchPort: 'the switch port the LLDP frame named, or null',
      secureBoot: 'Secure Boot as the event log shows it: true, false or null (unknown)',
      secureBootProblem: 'why `secureBoot` is null, when it is: the first thing the log cannot prove',
      bootImages:
        "the SHA-256 digest of each image the boot ran, as PCR 4 measured them, in order: the first is what the firmware launched (a class's `hookos_images` must list every one); null when the log has no SHA-256 bank",
      notes: "what the event log's replay noticed that did not refuse it",
    },
  },
  'attest.refusals': {
    when: "by fleetd, once a peer's minute has ended, when it provoked more refusals than had a line of their own",
    fields: {
      peer: PEER,
      suppressed: 'how many refusals had no `attest.verdict` line',
      verdicts: 'how many of them, by verdict',
      windowS: "the window's length, in seconds",
    },
  },
  'attest.install': {
    when: 'by fleetd, after each attested verdict: whether the boot was given an install code, and why not',
    fields: {
      request: REQUEST,
      node: NODE,
      serial: 'the serial the TPM was admitted for',
      issued: 'whether a code was answered',
      reason: 'why no code was answered (no provision asked, the render refused, no run)',
      bootId: 'the boot the code belongs to',
      run: 'the Workflow the code belongs to',
      intake: "true when the code starts a new machine's intake run",
    },
  },
  'fleet.render': {
    when: "by fleetd, when it renders what a run's node will fetch with its code (a Talos config or a disk image's seed), or cannot",
    fields: {
      request: REQUEST,
      node: NODE,
      class: "the entry's class",
      outcome: '`rendered` or `refused`',
      reason: 'why it was refused; no code is answered then, so nothing is wiped',
      document: '`config` or `seed`',
      expiresAt: 'when the held document is dropped unfetched',
    },
  },
  'fleet.config': {
    when: 'by fleetd, at a fetch of a config or seed that the journal cannot hold: an unknown code, wrong codes past their share, an inventory that does not answer, a device that could not be set active',
    fields: {
      peer: PEER,
      node: NODE,
      document: '`config` or `seed`',
      outcome:
        '`unknown-code`, `guessing-limited` (wrong codes past their share: once per address, group or verifier and window, then answered 429 unaudited), `inventory-unavailable` or `served`',
      limitedBy: 'with `guessing-limited`: `address`, `group` (its address group) or `total` (every peer together)',
      limit: 'with `guessing-limited`: the wrong codes that share allows per window',
      retryAfterS: 'with `guessing-limited`: seconds until the window ends',
      reason: 'what failed',
    },
  },
  'fleet.tls': {
    when: 'by fleetd, when the certificate files changed but cannot be served (half-written, or key and certificate do not match): the old pair stays',
    fields: { outcome: '`kept`', reason: 'what is wrong with the new files' },
  },
  'fleet.inventory': {
    when: 'by fleetd, at each change to the nodes file after start (seen by its watch, a lookup or SIGHUP): read and served, or refused whole with the last good one kept',
    fields: {
      outcome: '`reloaded` (served from now on, or put back as it was served) or `refused`',
      path: 'the nodes file',
      nodes: 'with `reloaded`: how many nodes it declares',
      problems: 'with `refused`: every problem, as `fleet inventory check` names them',
      kept: 'with `refused`: how many nodes the last good file, still served, declares',
      keptSince: 'with `refused`: when that file was read',
    },
  },
  'reconcile.pass': {
    when: 'by fleetd, after a reconcile pass that wrote something or has warnings',
    fields: { writes: 'how many writes it made', warnings: 'what it could not reconcile, one line each' },
  },
  'reconcile.failed': {
    when: 'by fleetd, when a reconcile pass fails: once, until a pass succeeds or fails otherwise',
    fields: { error: 'why', writes: 'how many writes it made before it failed' },
  },
  'reconcile.recovered': { when: 'by fleetd, at the first pass that succeeds after one failed', fields: {} },
  'reconcile.lease': {
    when: 'by fleetd, at stop, when the Lease could not be released (it then expires by itself)',
    fields: { outcome: '`kept`', error: 'why' },
  },
  'syslog.listening': {
    when: 'by the syslog receiver (fleetd or `fleet syslog`), once its socket is bound',
    fields: { host: 'the address it listens on', port: 'the UDP port', recvBufferBytes: "the socket's receive buffer, as the kernel granted it" },
  },
  'syslog.error': {
    when: 'by the syslog receiver, when its socket fails, or when fleetd starts without it because the default port could not be bound',
    fields: { reason: 'why' },
  },
} as const satisfies Record<string, AuditEventDef>;

export type AuditEvent = keyof typeof AUDIT_EVENTS;

/** The fields an event may carry: only those its definition names. */
export type AuditFields<E extends AuditEvent> = { readonly [F in keyof (typeof AUDIT_EVENTS)[E]['fields']]?: unknown };
