import { AsyncLocalStorage } from 'node:async_hooks';
import https, { type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * Many machines in one process, each from its own loopback address (127.0.0.0/8 is all local), as
 * fleetd would see them on a real network: its caps are per peer address. The agent's client takes
 * no local address, so Node's global HTTPS agent is swapped for one that binds each connection to
 * the address of the machine whose code opened it, and keeps each machine's connections apart.
 */
const current = new AsyncLocalStorage<string>();

class SourceAddressAgent extends https.Agent {
  override getName(options?: RequestOptions): string {
    return `${super.getName(options)}:${current.getStore() ?? ''}`;
  }

  override createConnection(options: RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const localAddress = current.getStore();
    return super.createConnection(localAddress ? { ...options, localAddress } : options, callback);
  }
}

/** Installs the agent (keep-alive, as Node 20's global one) until the returned function is called. */
export function bindSourceAddresses(): () => void {
  const before = https.globalAgent;
  const agent = new SourceAddressAgent({ keepAlive: true });
  https.globalAgent = agent;
  return () => {
    https.globalAgent = before;
    agent.destroy();
  };
}

/** Runs `fn` as the machine at `address`: every HTTPS connection it opens comes from there. */
export function fromAddress<T>(address: string, fn: () => Promise<T>): Promise<T> {
  return current.run(address, fn);
}
