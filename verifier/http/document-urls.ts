import { isLoopback } from '../../shared/net/loopback.js';
import type { InstallConfig } from '../config/serve-config.js';
import { isWildcard, type ListenAddress } from './listen-address.js';
import { DOC_PATHS } from './server.js';

/**
 * Where a run's node fetches its config or seed: as given, or under fleetd's base URL, which
 * defaults to where fleetd listens only when a node could reach that. A wildcard or loopback
 * address is no such place: a run carrying it would wipe the disk and install a system that can
 * never fetch its config. With no URL, runs wait for one (`lacks a config URL`).
 */
export function documentUrls(
  o: Pick<InstallConfig, 'baseUrl' | 'configUrl' | 'seedUrl'>,
  addr: ListenAddress,
  listening: string,
): { configUrl?: string; seedUrl?: string } {
  const reachable = !isWildcard(addr.host) && !isLoopback(addr.host);
  const base = (o.baseUrl ?? (reachable ? listening : undefined))?.replace(/\/+$/, '');
  const configUrl = o.configUrl ?? (base && `${base}${DOC_PATHS.config}`);
  const seedUrl = o.seedUrl ?? (base && `${base}${DOC_PATHS.seed}`);
  return { ...(configUrl ? { configUrl } : {}), ...(seedUrl ? { seedUrl } : {}) };
}
