/**
 * The part of the `cap` package (libpcap binding, CommonJS, no types of its own) the LLDP capture
 * uses. See node_modules/cap/README.md and src/binding.cc.
 */
declare module 'cap' {
  import type { EventEmitter } from 'node:events';

  export class Cap extends EventEmitter {
    /**
     * Opens `device` in promiscuous mode with a BPF `filter`; each packet is copied into `buffer`
     * and announced as `packet(nbytes, truncated)`. Returns the link type ('ETHERNET', ...).
     */
    open(device: string, filter: string, bufSize: number, buffer: Buffer): string;
    close(): boolean;
    on(event: 'packet', listener: (nbytes: number, truncated: boolean) => void): this;
  }

  const cap: { Cap: typeof Cap };
  export default cap;
}
