/**
 * The console lines of the boot's first steps (cmdline.ts, securityfs.ts, nic.ts, and the boot's
 * facts): each says what the agent found, or names what is wrong and where to fix it.
 */
import { said } from '../../shared/text/line-def.js';

/** The kernel command line (cmdline.ts): one line for each parameter missing or malformed. */
export const CMDLINE_LINES = {
  unreadable: said({
    when: '/proc/cmdline cannot be read: every parameter counts as missing',
    args: ['why'],
    text: (why) => `agent: cannot read /proc/cmdline: ${why}`,
  }),
  noAttestUrl: said({
    when: 'no fleet_attest_url',
    args: [],
    text: () => 'agent: the kernel command line has no fleet_attest_url: the agent cannot reach the verifier; fix the command line in hookos/',
  }),
  attestUrlNotUrl: said({
    when: 'fleet_attest_url does not parse as a URL',
    args: ['value'],
    text: (v) => `agent: fleet_attest_url=${v} is not a URL; fix the kernel command line in hookos/ (e.g. fleet_attest_url=https://fleetd.example:8443)`,
  }),
  attestUrlNotHttps: said({
    when: 'fleet_attest_url is not https (http is taken only to loopback)',
    args: ['value'],
    text: (v) => `agent: fleet_attest_url=${v} is not https; the agent talks to the verifier over TLS only`,
  }),
  noNtpServer: said({
    when: 'no fleet_ntp_server',
    args: [],
    text: () => 'agent: the kernel command line has no fleet_ntp_server: the clock stays as the firmware set it',
  }),
  ntpServerNotHost: said({
    when: 'fleet_ntp_server is not a host name, an IPv4 address or a bracketed IPv6 one, with an optional port',
    args: ['value'],
    text: (v) => `agent: fleet_ntp_server=${v} is not a host or host:port`,
  }),
  tinkerbellTlsNotBoolean: said({
    when: 'tinkerbell_tls is neither true nor false',
    args: ['value'],
    text: (v) => `agent: tinkerbell_tls=${v} is neither true nor false`,
  }),
  bootifNotMac: said({
    when: 'BOOTIF is not hardware type 01 and a MAC',
    args: ['value'],
    text: (v) => `agent: BOOTIF=${v} is not 01- and a MAC with dashes (as iPXE writes \${netX/mac:hexhyp})`,
  }),
};

export const SECURITYFS_LINES = {
  mounted: said({
    when: '/proc/mounts listed no securityfs there, and the agent mounted it',
    args: ['path'],
    text: (path) => `securityfs: mounted on ${path}`,
  }),
  failed: said({
    when: 'it could not be mounted (below): the event log stays unread, and the verifier refuses the boot',
    args: ['why'],
    text: (why) => `securityfs: ${why}`,
  }),
};

/** The `<why>` of `securityfs: <why>` (securityfs.ts). */
export const SECURITYFS_WHY = {
  unmountable: said({
    when: 'mount refused (the container is not privileged)',
    args: ['path', 'why'],
    text: (path, why) => `cannot mount securityfs on ${path}: ${why}; the event log stays unread (is the container privileged?)`,
  }),
};

export const NIC_LINES = {
  picked: said({
    when: 'the boot NIC is found; `<how>` is BOOTIF, ip=, the default route, or the only NIC with a link',
    args: ['name', 'MAC', 'how'],
    text: (name, mac, by) => `nic: ${name} ${mac} (by ${by})`,
  }),
};

/** The boot's facts (boot-facts.ts), read before the TPM's work. */
export const BOOT_FACT_LINES = {
  noEventLog: said({
    when: 'the firmware left no TCG event log: the attestation goes on, and its verdict says why it fails',
    args: ['path'],
    text: (path) => `eventlog: none at ${path}; the verifier refuses a boot without one (eventlog-missing)`,
  }),
};

/** Why `edge` cannot attest at all: each is the `<why>` of `attest: no verdict: <why>` (attest/lines.ts). */
export const NO_ATTEMPT = {
  noAttestUrl: said({
    when: 'the kernel command line gives no usable fleet_attest_url (its own line above says why)',
    args: [],
    text: () => 'no verifier URL (fleet_attest_url)',
  }),
  nicsUnlisted: said({
    when: 'the NICs cannot be listed',
    args: ['directory', 'why'],
    text: (dir, why) => `cannot list the NICs in ${dir}: ${why}`,
  }),
  noBootifNic: said({
    when: 'no NIC has the MAC BOOTIF names',
    args: ['MAC', 'NICs and their MACs'],
    text: (mac, nics) => `no NIC has the MAC BOOTIF names (${mac}); NICs: ${nics || 'none'}`,
  }),
  noIpNic: said({
    when: 'ip= names a NIC this machine does not have',
    args: ['name', 'NICs'],
    text: (name, nics) => `ip= names ${name}, which this machine does not have; NICs: ${nics || 'none'}`,
  }),
  noBootNic: said({
    when: 'no BOOTIF= or ip=, no default route, and not exactly one physical NIC with a link (with none: `no NIC has a link`): the agent does not guess',
    args: ['count', 'NICs'],
    text: (count, nics) =>
      `the kernel command line names no boot NIC (BOOTIF= or ip=), no NIC holds the default route, and ${count === '0' ? 'no NIC has a link' : `${count} NICs have a link (${nics})`}; add BOOTIF=01-\${netX/mac:hexhyp} to the iPXE script in hookos/`,
  }),
};
