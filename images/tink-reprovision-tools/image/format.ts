/** How a disk image is packed, told by its first bytes (never by the URL's suffix). */
export type ImageFormat = 'zstd' | 'xz' | 'gzip' | 'raw';

const MAGIC: Array<[ImageFormat, number[]]> = [
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['gzip', [0x1f, 0x8b]],
];

/** The format of an image held as the chunks it arrived in (the first may be a few bytes long). */
export function imageFormat(chunks: readonly Uint8Array[]): ImageFormat {
  const head: number[] = [];
  for (const c of chunks) {
    if (head.length >= 8) break;
    head.push(...c.subarray(0, 8 - head.length));
  }
  return MAGIC.find(([, m]) => m.every((b, i) => head[i] === b))?.[0] ?? 'raw';
}
