/**
 * A peer's address as people write it: an IPv4 peer of a dual-stack socket arrives as
 * `::ffff:a.b.c.d`, and is that IPv4 address; anything else is as given.
 */
export function peerAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
