import type { ProtocolVerdict } from './wire/verdicts.js';

/** The parts of fleet that raise errors: the HookOS agent, fleetd, the Template actions, the other `fleet` commands. */
export type Part = 'agent' | 'verifier' | 'actions' | 'cli';

export interface ErrorEntry {
  /** What happened and what to do, in one line. */
  readonly meaning: string;
  readonly raisedBy: readonly Part[];
  /** The status fleetd answers with, for a code that reaches an HTTP answer. */
  readonly http?: number;
}

/**
 * Every code fleet raises: the `[code]` at the end of an error line, and the `error` of fleetd's
 * HTTP answers. A code is a stable word; docs/reference/errors.md is rendered from this (npm run docs).
 */
export const ERROR_CODES = {
  'action-refused': {
    raisedBy: ['actions'],
    meaning:
      'A Template action refused to go on; one whose line ends "nothing wiped" or "nothing written" refused before its first write. Fix what the line names and run the workflow again.',
  },
  'bad-request': {
    raisedBy: ['verifier'],
    http: 400,
    meaning: "The request body does not match the wire schema: the agent and fleetd are of different versions, or the request is not an agent's.",
  },
  'boot-facts': {
    raisedBy: ['agent'],
    meaning:
      "The agent cannot read a boot fact (the SMBIOS serial, the boot id, a NIC's MAC, the LLDP frame file, the event log): check the path the message names.",
  },
  'boot-nic': {
    raisedBy: ['agent'],
    meaning: 'The agent cannot tell which NIC the machine booted from (BOOTIF=, ip=, the default route, the NICs with a link): add BOOTIF= to the iPXE script.',
  },
  'class-inputs-invalid': {
    raisedBy: ['verifier'],
    meaning:
      "A class's deployed inputs (config.yaml, network.yaml, seed.yaml) are not what fleet render-class-inputs writes: render them again and deploy them.",
  },
  'class-inputs-missing': {
    raisedBy: ['verifier'],
    meaning: "A class's inputs are missing or incomplete, so its nodes get no install code: run fleet render-class-inputs and deploy them.",
  },
  'config-unreadable': {
    raisedBy: ['verifier'],
    meaning:
      "A file fleetd's options name cannot be read (the NetBox token file, Tinkerbell's or the target cluster's kubeconfig): the message names it and why.",
  },
  'ek-cert-malformed': {
    raisedBy: ['verifier', 'cli'],
    meaning:
      'An EK certificate (DER or PEM, plain or after the TCG NV header, with any padding) does not decode: cut off, a length that runs past its end, a partial NV certificate, or TCG fields that are not as the EK Credential Profile writes them. One the agent sent makes fleetd refuse the attestation as ek-cert-mismatch.',
  },
  'ek-cert-unreadable': {
    raisedBy: ['cli'],
    meaning: 'fleet ek-cert cannot read the file it was given: check the path and its permissions.',
  },
  'ek-roots-invalid': {
    raisedBy: ['cli'],
    meaning:
      "A file in fleet ek-cert's --roots or fleet attest approve's --ek-roots directory is not an X.509 certificate (PEM or DER), or the directory holds none: keep only the EK CA certificates there, roots and intermediates.",
  },
  'ek-roots-unreadable': {
    raisedBy: ['cli'],
    meaning:
      'fleet ek-cert cannot read its --roots directory, or fleet attest approve its --ek-roots directory, or a file in it: check the path and its permissions.',
  },
  'ek-unusable': {
    raisedBy: ['verifier'],
    meaning:
      'No credential can be made for a claimed EK (not a restricted decryption key, not AES-CFB, a hash or curve fleet lacks): fleetd refuses the attestation as ek-invalid.',
  },
  'eventlog-bank-unavailable': {
    raisedBy: ['verifier', 'cli'],
    meaning:
      'The event log cannot be replayed for the PCR bank asked for (it has no such bank, or an event lacks its digest): the log does not describe the SHA-256 PCRs.',
  },
  'eventlog-empty': {
    raisedBy: ['verifier', 'cli'],
    meaning: 'The event log is 0 bytes: read binary_bios_measurements with securityfs mounted, on a machine whose firmware keeps a TPM log.',
  },
  'eventlog-malformed': {
    raisedBy: ['verifier', 'cli'],
    meaning: 'The event log is not a TCG crypto-agile log (a truncated or lying record, a bad Spec ID event): fleetd refuses it as eventlog-invalid.',
  },
  'eventlog-undecodable': {
    raisedBy: ['verifier', 'cli'],
    meaning: "An event's data does not decode as its event type says: the event is shown as undecodable, and the log still replays.",
  },
  'eventlog-unreadable': {
    raisedBy: ['cli'],
    meaning: 'fleet eventlog cannot read the file it was given: check the path and its permissions.',
  },
  'gpt-malformed': {
    raisedBy: ['actions'],
    meaning:
      "A disk's (or an image's) GPT header or partition array has a bad size or checksum: the action fails; check that the disk or image is the one declared.",
  },
  'hookos-config': {
    raisedBy: ['cli'],
    meaning: 'The HookOS config of fleet hookos generate is unreadable, not YAML, or lacks or misuses a setting: fix what the message names.',
  },
  'insecure-listen': {
    raisedBy: ['verifier'],
    meaning: 'fleet serve was asked for plain HTTP off loopback, where the answers carry install codes: give --cert and --key, or listen on loopback.',
  },
  internal: {
    raisedBy: ['verifier'],
    http: 500,
    meaning: 'fleetd failed while answering (its inventory, its state): read journalctl -u fleetd; the agent tries again.',
  },
  'inventory-ambiguous': {
    raisedBy: ['verifier'],
    meaning: 'NetBox holds more than one device with the serial or MAC a machine claims: fleet admits none of them until NetBox holds one.',
  },
  'inventory-invalid': {
    raisedBy: ['verifier'],
    meaning:
      "NetBox holds a device whose name is not a host name (RFC 1123, lowercase): fleet admits and provisions nothing from it (its reconciler's reads fail too) until NetBox names it so.",
  },
  'journal-unreachable': {
    raisedBy: ['verifier'],
    meaning: "fleet serve cannot reach journald's socket for HookOS's syslog: is systemd-journald running? --journal-socket names another socket.",
  },
  'kube-conflict': {
    raisedBy: ['verifier'],
    meaning: 'A Kubernetes object changed since fleetd read it (409): fleetd reads it again and plans again.',
  },
  'kube-exists': {
    raisedBy: ['verifier'],
    meaning: 'A Kubernetes object fleetd creates already exists (409 AlreadyExists): fleetd reads it again and plans again.',
  },
  'kube-forbidden': {
    raisedBy: ['verifier'],
    meaning: "The Kubernetes API server refused fleetd's credentials (401, 403): check the kubeconfig's client certificate and its RBAC.",
  },
  'kube-not-found': {
    raisedBy: ['verifier'],
    meaning: 'No such Kubernetes object (404): fleetd takes it as absent where absence is expected.',
  },
  'kube-refused': {
    raisedBy: ['verifier'],
    meaning: 'The Kubernetes API server refused a request (another 4xx, e.g. a field the CRD lacks): the message holds its reason.',
  },
  'kube-unavailable': {
    raisedBy: ['verifier'],
    meaning: 'The Kubernetes API server failed or throttled fleetd (5xx, 429): fleetd tries again at its next pass.',
  },
  'kube-unreachable': {
    raisedBy: ['verifier'],
    meaning: "No answer from the Kubernetes API server (connection, DNS, TLS): check the kubeconfig's server and the network.",
  },
  'lldp-capture-invalid': {
    raisedBy: ['agent', 'cli'],
    meaning: 'The file is neither a pcap capture nor a raw LLDP frame, or is truncated: capture again (tcpdump -w).',
  },
  'lldp-capture-unsupported': {
    raisedBy: ['agent', 'cli'],
    meaning: 'The capture is pcapng, or not of Ethernet: save it as pcap (editcap -F pcap IN OUT), captured on an Ethernet interface.',
  },
  'lldp-malformed': {
    raisedBy: ['agent', 'verifier', 'cli'],
    meaning: 'An LLDP frame or one of its TLVs is truncated or lies about its length: fleet learns no switch port from it.',
  },
  'lldp-not-lldp': {
    raisedBy: ['agent', 'verifier', 'cli'],
    meaning: 'A frame is not LLDP (its ethertype is not 0x88cc): fleet lldp skips it.',
  },
  'lldp-unreadable': {
    raisedBy: ['cli'],
    meaning: 'fleet lldp cannot read the file it was given: check the path and its permissions.',
  },
  'netbox-bad-request': {
    raisedBy: ['verifier'],
    meaning: "NetBox refused a request's content (400), field by field: check that NetBox has the custom fields and choices fleet needs.",
  },
  'netbox-config-invalid': {
    raisedBy: ['verifier'],
    meaning: 'The NetBox URL or token fleet was given is unusable: fix --netbox-url or the token file.',
  },
  'netbox-error': {
    raisedBy: ['verifier'],
    meaning: "NetBox failed (5xx after the retries, another 4xx) or answered something that is not its JSON: read NetBox's own logs.",
  },
  'netbox-filter-refused': {
    raisedBy: ['verifier'],
    meaning: 'fleet refused to send a query NetBox would silently ignore (answering every object), or a bad value: nothing was sent.',
  },
  'netbox-forbidden': {
    raisedBy: ['verifier'],
    meaning: 'NetBox refused the token (401, 403): unknown, disabled, expired, read-only, or its user lacks the permission the message names.',
  },
  'netbox-not-found': {
    raisedBy: ['verifier'],
    meaning: 'NetBox has no such object or endpoint (404).',
  },
  'netbox-unreachable': {
    raisedBy: ['verifier'],
    meaning: 'No answer from NetBox (connection refused or reset, DNS, timeout): check --netbox-url and the network.',
  },
  'nodes-invalid': {
    raisedBy: ['verifier', 'cli'],
    meaning: 'The nodes file cannot be read or has problems: fleet inventory check FILE lists them.',
  },
  'not-found': {
    raisedBy: ['verifier', 'cli'],
    http: 404,
    meaning:
      'fleetd has no such route, or no config or seed for this install code (unknown, spent or expired); from fleet inventory show, no such node in the nodes file.',
  },
  'pe-malformed': {
    raisedBy: ['cli'],
    meaning: 'fleet hookos digest was given a file that is not a PE/COFF image (a UKI or an EFI kernel): check that it is the image the firmware boots.',
  },
  'platform-cert-malformed': {
    raisedBy: ['cli'],
    meaning:
      'A platform certificate (an X.509 attribute certificate, DER or PEM) does not decode, or is no TCG platform certificate: cut off, a length that runs past its end, no certificatePolicies naming a TCG or TCPA Trusted Platform Endorsement, a holder that names no certificate by issuer and serial, or TCG attributes not as the Platform Certificate Profile writes them.',
  },
  'platform-cert-unreadable': {
    raisedBy: ['cli'],
    meaning: 'fleet platform-cert cannot read the file it was given, or fleet attest approve its --platform-cert file: check the path and its permissions.',
  },
  'platform-roots-invalid': {
    raisedBy: ['cli'],
    meaning:
      "A file in fleet platform-cert's --roots or fleet attest approve's --platform-roots directory is not an X.509 certificate (PEM or DER), or the directory holds none: keep only the platform certificate issuer's CA certificates there, roots and intermediates.",
  },
  'platform-roots-unreadable': {
    raisedBy: ['cli'],
    meaning:
      'fleet platform-cert cannot read its --roots directory, or fleet attest approve its --platform-roots directory, or a file in it: check the path and its permissions.',
  },
  'pe-unreadable': {
    raisedBy: ['cli'],
    meaning: 'fleet hookos digest cannot read the file it was given: check the path and its permissions.',
  },
  'quote-malformed': {
    raisedBy: ['agent', 'verifier'],
    meaning: 'A TPM quote (its TPMS_ATTEST or TPMT_SIGNATURE) does not parse: fleetd refuses it as quote-invalid.',
  },
  'render-inputs-invalid': {
    raisedBy: ['cli'],
    meaning:
      'fleet render-class-inputs was given a --secrets file that is not a talosctl gen secrets bundle, or --settings that lack a field: the message names which.',
  },
  'render-invalid': {
    raisedBy: ['verifier'],
    meaning: 'The Talos config fleetd rendered for a node lacks or misuses a field: the node gets no install code; render and deploy its class inputs again.',
  },
  securityfs: {
    raisedBy: ['agent'],
    meaning: 'The agent cannot mount securityfs, so the event log stays unread: run its container privileged.',
  },
  'serial-malformed': {
    raisedBy: ['actions'],
    meaning: "A disk's serial holds unprintable bytes: the disk cannot be matched to the declared serial.",
  },
  sntp: {
    raisedBy: ['agent'],
    meaning: 'No usable answer from the NTP server (timeout, socket error, a bad answer): check fleet_ntp_server= and that the server answers.',
  },
  'sntp-kiss-of-death': {
    raisedBy: ['agent'],
    meaning: "The NTP server answered kiss-o'-death (stratum 0): the agent stops asking it.",
  },
  'state-locked': {
    raisedBy: ['verifier'],
    meaning:
      'Another fleetd uses the state directory given as --state (its pid file names it): two on one state would hand out codes each other cannot see. Stop it, or give this one another --state. The lock goes with its process, however it ends.',
  },
  'state-missing': {
    raisedBy: ['cli'],
    meaning: "A command that reads fleetd's state found no database in --state: give the directory fleet serve keeps its state in (nothing is created).",
  },
  'state-unavailable': {
    raisedBy: ['verifier', 'cli'],
    meaning:
      'The state database in --state cannot be opened, or has a schema this fleet does not know: check the directory, and that fleet is not older than the database.',
  },
  'syslog-listen': {
    raisedBy: ['verifier'],
    meaning:
      'fleet serve cannot receive syslog on the address given (in use, or a port below 1024 without the capability): give another --syslog-listen, or off.',
  },
  'too-many-guesses': {
    raisedBy: ['verifier'],
    http: 429,
    meaning:
      'The address, its address group, or every peer together sent fleetd more wrong install codes this minute than their share: wrong codes are answered this until the minute ends (Retry-After). A node asks with its own code, so this is someone guessing.',
  },
  'too-many-sessions': {
    raisedBy: ['verifier'],
    http: 429,
    meaning: 'One peer address holds too many attestation sessions: the agent tries again later.',
  },
  'tpm-bad-key': {
    raisedBy: ['verifier'],
    meaning: 'A TPM public key is not a valid key (its RSA modulus or ECC point): fleetd refuses the key it was sent.',
  },
  'tpm-malformed': {
    raisedBy: ['agent', 'verifier'],
    meaning:
      'A TPM response or structure (TPMT_PUBLIC) is truncated or lies about its sizes, or uses a name algorithm fleet lacks: a faulty TPM, or a damaged message.',
  },
  'tpm-no-ek': {
    raisedBy: ['agent'],
    meaning: 'The TPM has no RSA-2048 or ECC P-256 EK, or not the one fleetd challenged: this machine cannot attest until its TPM has an EK.',
  },
  'tpm-pcrs-moving': {
    raisedBy: ['agent'],
    meaning: 'The PCRs kept changing between reading and quoting them: something is still measuring into the TPM; attest again once the boot has settled.',
  },
  'tpm-rc': {
    raisedBy: ['agent'],
    meaning: 'The TPM answered a command with an error (TPM_RC_…, with what to do when fleet knows it).',
  },
  'tpm-timeout': {
    raisedBy: ['agent'],
    meaning: 'A TPM behind a socket (unix: or tcp:, a simulator) did not answer within the timeout: check the simulator --tpm names.',
  },
  'tpm-unavailable': {
    raisedBy: ['agent'],
    meaning: 'The agent cannot open or reach the TPM, or lost it (/dev/tpmrm0, or a unix: or tcp: socket): check --tpm and that the device exists.',
  },
  'tpm-unsupported': {
    raisedBy: ['agent', 'verifier'],
    meaning: 'A TPM structure uses a hash algorithm or ECC curve fleet does not support.',
  },
  unavailable: {
    raisedBy: ['verifier'],
    http: 503,
    meaning: 'fleetd cannot serve a config or seed now (its inventory does not answer, or another fetch of it is being answered): try again after Retry-After.',
  },
  usage: {
    raisedBy: ['agent', 'verifier', 'cli'],
    meaning:
      "A command's arguments or options are missing, malformed or contradict each other: the message says which, and the command's usage follows where it helps.",
  },
  'verifier-url-refused': {
    raisedBy: ['agent'],
    meaning: "The agent's --url is neither https nor http, or is plain HTTP to another machine: the install code must not cross the network in clear text.",
  },
  'verifier-answer-invalid': {
    raisedBy: ['agent'],
    meaning: "fleetd's answer does not match the wire schema: the agent and fleetd are of different versions.",
  },
  'verifier-error': {
    raisedBy: ['agent'],
    meaning: 'fleetd answered 5xx, or no status: the agent tries again; read journalctl -u fleetd.',
  },
  'verifier-refused': {
    raisedBy: ['agent'],
    meaning: "fleetd refused the request (4xx): the message holds fleetd's reason.",
  },
  'verifier-unreachable': {
    raisedBy: ['agent'],
    meaning: 'No answer from fleetd (connection, TLS, timeout): check the URL, the CA and the network; the agent tries again.',
  },
  'vpd-malformed': {
    raisedBy: ['actions'],
    meaning: "A disk's VPD page 0x80 (its serial) is truncated or another page: the disk cannot be matched to the declared serial.",
  },
  'wwid-malformed': {
    raisedBy: ['actions'],
    meaning: "A disk's wwid is of no known form: the disk cannot be matched to the declared serial.",
  },
} as const satisfies Record<string, ErrorEntry>;

export type RegisteredCode = keyof typeof ERROR_CODES;

/**
 * What a FleetError's `code` may be. A refusal of the evidence (verifier/attest/refusal.ts) carries
 * its protocol verdict, which is shared/wire/verdicts.ts's word, not this registry's.
 */
export type ErrorCode = RegisteredCode | ProtocolVerdict;

/** The codes fleetd answers over HTTP. */
export type HttpErrorCode = { [C in RegisteredCode]: (typeof ERROR_CODES)[C] extends { http: number } ? C : never }[RegisteredCode];

export function httpStatus(code: HttpErrorCode): number {
  return ERROR_CODES[code].http;
}
