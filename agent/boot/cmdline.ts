import { CMDLINE_LINES } from './lines.js';

/**
 * The kernel command line HookOS boots with (hookos/ generates it): what the agent needs from it,
 * parsed into typed values, with one console line for each thing missing or malformed.
 */
export interface BootParams {
  /** fleet_attest_url: the verifier, https (http only to loopback). */
  attestUrl: URL | null;
  /** fleet_ntp_server: host or host:port whose SNTP answer sets the clock. */
  ntpServer: { host: string; port: number } | null;
  /** tinkerbell_tls: whether tink-agent talks TLS to the Tink server (the agent only reports it). */
  tinkerbellTls: boolean | null;
  /** The boot NIC's MAC from BOOTIF= (iPXE/PXELINUX `01-aa-bb-...`), lower case with colons. */
  bootMac: string | null;
  /** The boot NIC's name from ip=<client>:<server>:<gw>:<mask>:<host>:<device>:... */
  bootNic: string | null;
  /** worker_id: tink-agent's id for this machine (a MAC in the lab). */
  workerId: string | null;
}

export interface ParsedCmdline {
  params: BootParams;
  /** Console lines (lines.ts): each names the parameter and what is wrong, in the runbook's words. */
  problems: string[];
}

/** Splits like the kernel: whitespace separates, double quotes group (`a="b c"`). */
export function tokenize(cmdline: string): Array<[string, string | null]> {
  const out: Array<[string, string | null]> = [];
  const re = /(?:[^\s"]+|"[^"]*"?)+/g;
  for (const m of cmdline.matchAll(re)) {
    const word = m[0].replace(/"/g, '');
    const eq = word.indexOf('=');
    out.push(eq < 0 ? [word, null] : [word.slice(0, eq), word.slice(eq + 1)]);
  }
  return out;
}

const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])$/;

function attestUrl(v: string, problems: string[]): URL | null {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    problems.push(CMDLINE_LINES.attestUrlNotUrl(v));
    return null;
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    problems.push(CMDLINE_LINES.attestUrlNotHttps(v));
    return null;
  }
  return url;
}

function ntpServer(v: string, problems: string[]): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(v);
  const port = m?.[2] ? Number(m[2]) : 123;
  if (!m || !HOST.test(m[1]!) || port < 1 || port > 65535) {
    problems.push(CMDLINE_LINES.ntpServerNotHost(v));
    return null;
  }
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/** BOOTIF=01-aa-bb-cc-dd-ee-ff: hardware type 01 (Ethernet), then the MAC with dashes. */
function bootMac(v: string, problems: string[]): string | null {
  const m = /^01-((?:[0-9A-Fa-f]{2}-){5}[0-9A-Fa-f]{2})$/.exec(v);
  if (!m) {
    problems.push(CMDLINE_LINES.bootifNotMac(v));
    return null;
  }
  return m[1]!.toLowerCase().replace(/-/g, ':');
}

/** The 6th field of ip= names the device; `ip=dhcp` and the like name none. */
function ipDevice(v: string): string | null {
  const fields = v.split(':');
  return fields.length >= 6 && fields[5] ? fields[5] : null;
}

export function parseCmdline(text: string): ParsedCmdline {
  const problems: string[] = [];
  // A parameter given but malformed has its own line; only one never given is said missing.
  const given = new Set<string>();
  const params: BootParams = { attestUrl: null, ntpServer: null, tinkerbellTls: null, bootMac: null, bootNic: null, workerId: null };
  for (const [key, value] of tokenize(text)) {
    if (value === null) continue;
    given.add(key);
    switch (key) {
      case 'fleet_attest_url':
        params.attestUrl = attestUrl(value, problems);
        break;
      case 'fleet_ntp_server':
        params.ntpServer = ntpServer(value, problems);
        break;
      case 'tinkerbell_tls':
        if (value === 'true' || value === 'false') params.tinkerbellTls = value === 'true';
        else problems.push(CMDLINE_LINES.tinkerbellTlsNotBoolean(value));
        break;
      case 'BOOTIF':
        params.bootMac = bootMac(value, problems);
        break;
      case 'ip':
        params.bootNic = ipDevice(value) ?? params.bootNic;
        break;
      case 'worker_id':
        params.workerId = value || null;
        break;
    }
  }
  if (!given.has('fleet_attest_url')) problems.push(CMDLINE_LINES.noAttestUrl());
  if (!given.has('fleet_ntp_server')) problems.push(CMDLINE_LINES.noNtpServer());
  // worker_id is a MAC in the lab: with no BOOTIF it still names the boot NIC.
  if (!params.bootMac && params.workerId && MAC.test(params.workerId.toLowerCase())) params.bootMac = params.workerId.toLowerCase();
  return { params, problems };
}
