/**
 * A POSIX ustar archive of plain files, in memory: what the cloud-init-nocloud action extracts
 * with `tar -x` into var/lib/cloud/seed/nocloud. Every file is root's, mode 0600 (user-data may
 * hold secrets), dated `mtime`.
 */
export function ustar(files: ReadonlyArray<{ name: string; body: Buffer }>, mtime: Date): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(f.name)) throw new Error(`${f.name} is not a name a seed file may have`);
    const h = Buffer.alloc(512);
    h.write(f.name, 0, 'ascii');
    h.write('0000600\0', 100, 'ascii'); // mode
    h.write('0000000\0', 108, 'ascii'); // uid
    h.write('0000000\0', 116, 'ascii'); // gid
    h.write(`${f.body.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    h.write(
      `${Math.floor(mtime.getTime() / 1000)
        .toString(8)
        .padStart(11, '0')}\0`,
      136,
      'ascii',
    );
    h.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
    h.write('0', 156, 'ascii'); // a regular file
    h.write('ustar\x0000', 257, 'binary');
    h.write('root', 265, 'ascii');
    h.write('root', 297, 'ascii');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(h, f.body, Buffer.alloc((512 - (f.body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024)); // two zero blocks end the archive
  return Buffer.concat(blocks);
}
