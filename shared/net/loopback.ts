import { isIP } from 'node:net';

/** Loopback only: where plain HTTP may go, since nothing off this machine can see it. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
