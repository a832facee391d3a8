/**
 * Every `fleet` command but serve, status and syslog (whose options are fleetd's, in
 * verifier/config/) and the agent (agent/agent-options.ts, in its bundle): each defined once, for
 * the parser that reads it, its --help and docs/reference/cli.md (npm run docs).
 */
import { type CommandDef, HELP_OPTION } from '../shared/options.js';

const JSON_OPTION = { name: 'json', help: 'one JSON object instead of text' } as const;
const NODE_NETWORK = { name: 'node-network', value: 'CIDR', help: 'the node network, for addresses the file writes without a prefix length' } as const;
const NODES = { name: 'nodes', value: 'FILE', help: 'the nodes file' } as const;
const STATE = { name: 'state', value: 'DIR', help: 'the directory fleet serve keeps its state in' } as const;

export const ATTEST_APPROVE = {
  command: 'attest approve',
  synopsis: 'SERIAL --state DIR [--ek-roots DIR [--platform-cert FILE [--platform-roots DIR]]]',
  about:
    "prints the waiting claim (serial, MAC, switch port seen, from where, when) and each EK's hash with what its EK certificate says: the TPM's manufacturer, model and version, the certificate's issuer, subject, dates (shown, never failed) and TPM specification. With `--ek-roots`, it follows each certificate's issuer through the EK CA certificates in DIR (PEM, several to a file, or DER; roots and intermediates) up to a self-signed root, as `fleet ek-cert --roots` does, and names the root and each CA certificate that verified, or says why the chain does not verify (`no-issuer`, `signature-fails`, ... as for `fleet ek-cert`); without it, `chain: not checked`. A directory that does not read stops it before it prints anything (`ek-roots-unreadable`, `ek-roots-invalid`). With `--platform-cert`, a TCG platform certificate as `fleet platform-cert` reads it (a file that does not read stops it likewise: `platform-cert-unreadable`, `platform-cert-malformed`; and its `--platform-roots` directory: `platform-roots-unreadable`, `platform-roots-invalid`), it checks the certificate against the claim (it needs `--ek-roots`: a usage error without): its holder must be one of the claim's EK certificates (by issuer and serial) that verifies up to `--ek-roots` and certifies the EK the claim's TPM proved, since an issuer and serial can be copied onto any key's certificate; every certificate of both chains must have been valid when the claim was made; one of its platform, chassis or baseboard serials the claim's serial (exactly; placeholders match nothing), and its signature must verify up to a root in the `--platform-roots` directory, as `fleet platform-cert --roots` follows it. When all three hold, one line says what it ties (`platform certificate: ties its platform serial … to the rsa2048 EK certificate (issuer …, serial …) of EK …; verified: …`); else one line for each check that failed and why (`platform certificate: holder not verified: …`; a delta certificate fails it, since its holder is its base certificate; without `--platform-roots`, `chain not checked`). Then exactly `approved_ek_rsa2048: <hash>` and `approved_ek_eccp256: <hash>`. It approves nothing, and says so, also when every chain verifies: a maker's certificate says who made a TPM, not which machine it is in, so each hash is still compared with independent evidence; a verified platform certificate is such evidence, its maker's signed word that the machine with this serial holds that EK certificate, for the operator to weigh: admission never reads it. A claim kept by an older fleetd holds only its certificates' subjects and issuers, and says so. Anyone with a TPM can claim any serial, so each TPM's claim is kept apart (no claim displaces another peer's; a peer holds at most 2 per serial and 16 in all, its own oldest going first, an address group 128, and a full table sheds the largest group's largest address first; approve says first how many claims of the serial were shed, and when): when several TPMs claim the serial it says so first (`N different TPMs claim the serial …; at most one is that machine`) and prints each. What the claimant sent, and what a certificate says, is printed ASCII only: anything outside printable ASCII escaped (`\\xNN`, `\\uNNNN`), so no control character rewrites the terminal and a fullwidth or look-alike serial shows as escapes, not as the ASCII it imitates",
  positionals: { min: 1, max: 1 },
  options: [
    STATE,
    { name: 'ek-roots', value: 'DIR', help: 'EK CA certificates (PEM or DER) each EK certificate is followed up to' },
    { name: 'platform-cert', value: 'FILE', help: "a TCG platform certificate of the machine's maker, checked against the claim (needs --ek-roots)" },
    { name: 'platform-roots', value: 'DIR', help: "the maker's platform CA certificates its signature is followed up to" },
    HELP_OPTION,
  ],
} as const satisfies CommandDef;

export const INVENTORY_CHECK = {
  command: 'inventory check',
  synopsis: 'FILE [--node-network CIDR]',
  about: "validates a nodes file as the runbook's plan step does; prints every problem with its node; exits 1 on any",
  positionals: { min: 1, max: 1 },
  options: [NODE_NETWORK, HELP_OPTION],
} as const satisfies CommandDef;

export const INVENTORY_SHOW = {
  command: 'inventory show',
  synopsis: 'HOST --nodes FILE --state DIR [--node-network CIDR]',
  about: 'a device: its declaration, what fleet wrote, its journal (JSON)',
  positionals: { min: 1, max: 1 },
  options: [NODES, STATE, NODE_NETWORK, HELP_OPTION],
} as const satisfies CommandDef;

export const INVENTORY_ACTION = {
  command: 'inventory action',
  synopsis: 'HOST provision|retire|none --nodes FILE --state DIR [--node-network CIDR]',
  about: 'sets desired_action in the embedded inventory (NetBox users set the custom field)',
  positionals: { min: 2, max: 2 },
  options: [NODES, STATE, NODE_NETWORK, HELP_OPTION],
} as const satisfies CommandDef;

export const RENDER_CLASS_INPUTS = {
  command: 'render-class-inputs',
  synopsis: '--secrets FILE --settings FILE --out DIR',
  about: "each Talos class's inputs from a `talosctl gen secrets` bundle and the cluster's settings, and each disk-image class's seed inputs",
  options: [
    { name: 'secrets', value: 'FILE', help: "the cluster's `talosctl gen secrets` bundle" },
    { name: 'settings', value: 'FILE', help: "the cluster's settings (docs/operations.md holds a complete example)" },
    { name: 'out', value: 'DIR', help: "where each class's inputs are written (fleet serve --class-inputs)" },
    HELP_OPTION,
  ],
} as const satisfies CommandDef;

export const EVENTLOG = {
  command: 'eventlog',
  synopsis: '[--json] FILE',
  about: 'decodes a TCG event log (binary or base64) and replays it: events, final PCRs per bank, Secure Boot state',
  positionals: { min: 1, max: 1 },
  options: [JSON_OPTION, HELP_OPTION],
} as const satisfies CommandDef;

export const LLDP = {
  command: 'lldp',
  synopsis: '[--json] FILE',
  about: 'decodes the LLDP frames of a pcap or raw frame file: chassis, port, TTL, system name, port description, org TLVs',
  positionals: { min: 1, max: 1 },
  options: [JSON_OPTION, HELP_OPTION],
} as const satisfies CommandDef;

export const EK_CERT = {
  command: 'ek-cert',
  synopsis: '[--json] FILE [--roots DIR]',
  about:
    "reads an EK certificate as a receiving scan or a TPM's NV index holds it (DER or PEM; the 7-byte TCG NV header and any padding after the DER are passed over): its EK hash (the value to approve, also for the RSAES-OAEP keys of TPM 1.2-era certificates, which `openssl x509 -pubkey` cannot load), the TPM's manufacturer, model and version, its TPM specification and security assertions. With `--roots`, it follows the issuer through the EK CA certificates in DIR (PEM, several to a file, or DER; roots and intermediates) up to a self-signed root, as HIRS does, and names each, or says why not: `no-issuer`, `signature-fails`, `self-signature-fails`, `not-a-ca`, `unsupported-signature` (RSA PKCS #1 v1.5 and ECDSA with SHA-1 to SHA-512 are checked), `too-long` (over 8 CAs). Validity dates are shown for every certificate and fail nothing: a TPM outlives its EK certificate (HIRS fails an expired EK certificate by its default policy, never a CA's; its tests turn that off). Exits 0 whenever the certificate reads, verified or not; a file that does not is `ek-cert-malformed`. `--json`: one object: `ekHash`, `key`, `tpm`, `spec`, `assertions`, `serial`, `issuer`, `subject`, `notBefore`, `notAfter`, `validity`, `signatureAlgorithm`, `stored` (`encoding`, `tcgHeader`, `trailingBytes`), `at`, and `chain` (null without `--roots`; else `verified`, `certificates` with `source`, `subject`, `root` and dates, `failure` with `reason` and `message`)",
  positionals: { min: 1, max: 1 },
  options: [JSON_OPTION, { name: 'roots', value: 'DIR', help: 'EK CA certificates the certificate is followed up to' }, HELP_OPTION],
} as const satisfies CommandDef;

export const PLATFORM_CERT = {
  command: 'platform-cert',
  synopsis: '[--json] FILE [--roots DIR]',
  about:
    "reads a TCG platform certificate (an X.509 attribute certificate, DER or PEM, labelled `ATTRIBUTE CERTIFICATE` or `CERTIFICATE`), in TCG 1.2's layout (\"TCPA Trusted Platform Endorsement\") or the Platform Certificate Profile's (\"TCG Trusted Platform Endorsement\"): the platform's manufacturer, model and version, its platform serial, and its chassis and baseboard serials (TCG 1.2's combined \"chassis,baseboard\" field, whose second part is also the platform serial, as HIRS reads it; else the serials of the components of class chassis and baseboard); the holder, the EK certificate it is bound to by issuer and serial (for a delta certificate, its base platform certificate); base or delta (`tcgCredentialType`); the TCG platform specification, the profile's version, the TBB security assertions; the components (class, manufacturer, model, serial, revision, addresses, and a delta's status) and platform properties of `platformConfiguration` or `platformConfiguration-v2`. With `--roots`, it checks the signature against the CA certificates in DIR and follows the issuer up to a self-signed root, as `fleet ek-cert` does (the same reasons when it does not). Exits 0 whenever the certificate reads, verified or not; a file that does not, or is no platform certificate (no TCG credential type in its certificatePolicies), is `platform-cert-malformed`; the roots directory's codes are `platform-roots-unreadable` and `platform-roots-invalid`. It approves nothing. `--json`: one object: `encoding`, `credentialType`, `kind`, `credentialTypeOid`, `platform` (`manufacturer`, `manufacturerId`, `model`, `version`, `serial`, `chassisSerial`, `baseboardSerial`), `holder` (`issuer`, `serial`), `spec`, `credentialSpec`, `tbb`, `configuration` (`version`, `components`, `componentsUri`, `properties`, `propertiesUri`), `configurationUri`, `serial`, `issuer`, `notBefore`, `notAfter`, `validity`, `signatureAlgorithm`, `authorityKeyId`, `caIssuersUri`, `at`, and `chain` as `fleet ek-cert` gives it",
  positionals: { min: 1, max: 1 },
  options: [JSON_OPTION, { name: 'roots', value: 'DIR', help: 'platform CA certificates its signature is followed up to' }, HELP_OPTION],
} as const satisfies CommandDef;

export const HOOKOS_GENERATE = {
  command: 'hookos generate',
  synopsis: '--config FILE --out DIR [--set NAME=VALUE ...]',
  about:
    'writes the HookOS kernel command line, the iPXE menu, the Hardware iPXE script and the container spec from one config (see [the boot side](../operations.md#the-boot-side-hookos))',
  options: [
    { name: 'config', value: 'FILE', help: 'the boot config (hookos/lab.yaml)' },
    { name: 'out', value: 'DIR', help: 'where the files are written' },
    { name: 'set', value: 'NAME=VALUE', multiple: true, help: "a value for one of the config's ${NAME} parameters; may be given again" },
    HELP_OPTION,
  ],
} as const satisfies CommandDef;

export const HOOKOS_DIGEST = {
  command: 'hookos digest',
  synopsis: 'UKI...',
  about:
    "prints each image's Authenticode SHA-256 (what the firmware measures into PCR 4 when it loads it), and that of the kernel a UKI embeds, for a class's `hookos_images` ([measured boot](../operations.md#admission))",
  positionals: { min: 1, max: Number.POSITIVE_INFINITY },
  options: [HELP_OPTION],
} as const satisfies CommandDef;
