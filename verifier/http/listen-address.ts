import { FleetError } from '../../shared/errors.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `HOST:PORT`, `[V6]:PORT` or `:PORT` (all interfaces). */
export function parseListenAddress(s: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(s);
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new FleetError('usage', `listen address ${s} is not HOST:PORT`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

/** All interfaces: where fleetd listens, but no address a node can be sent to. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** fleetd's URL as the address it was given names it, with the port it got. */
export function listeningUrl(addr: ListenAddress, port: number, tls: boolean): string {
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  return `${tls ? 'https' : 'http'}://${host}:${port}`;
}
