import { readFileSync } from 'node:fs';
import { readNodesFile } from '../../verifier/inventory/embedded/nodes-file.js';
import { OracleViolation, type Target } from '../engine/target.js';
import { utf8 } from './testdata.js';

const README = new URL('../../docs/operations.md', import.meta.url);
/** A first line `# --node-network CIDR` stands for fleetd's flag, so the caller's network is fuzzed too. */
const FLAG = /^# --node-network (\S*)/;

/** The nodes file examples of fleet's docs/operations.md: the shape an operator copies. */
function readmeExamples(): Uint8Array[] {
  const text = readFileSync(README, 'utf8');
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((y) => y.includes('nodes:'))
    .map(utf8);
}

/** The lab's nodes file, as `fleet inventory check` and fleetd's embedded inventory read it. */
const target: Target = {
  name: 'nodes-file',
  kind: 'yaml',
  seedSources: [
    'docs/operations.md (its nodes file example)',
    "fuzz/corpus/nodes-file/ (written for the fuzzer: IPv6, the caller's network, every class kind)",
  ],
  seeds: readmeExamples,
  dictionary: [
    ': ',
    '- ',
    '\n  ',
    '\n    ',
    '&a ',
    '*a',
    '<<: *a',
    '? ',
    '{',
    '}',
    '[',
    ']',
    "'",
    '"',
    '!!binary ',
    '!!str ',
    '!!int ',
    '!!map ',
    '!!seq ',
    '!!set ',
    '!!timestamp ',
    '~',
    'null',
    'true',
    '0x1F',
    '0o17',
    '.inf',
    '.nan',
    '1e400',
    '---\n',
    '...\n',
    '%YAML 1.1\n',
    '%TAG ! tag:x,2000:\n',
    '#',
    '|\n',
    '>-\n',
    '\t',
    '\r',
    '::',
    '%25',
    '/24',
    '/128',
    '::ffff:10.0.1.1',
    'fe80::1%eth0',
    '10.0.1.0/24',
    'node_network: ',
    'approved_ek_rsa2048: ',
    'address: ',
    'serial: ',
    'class: ',
    'control_plane: ',
    'payload: ',
  ],
  maxLen: 32 * 1024,
  slowMs: 1000,
  sources: ['verifier/inventory/embedded/'],
  oracle: 'never throws: every problem comes back in `problems` (the caller refuses the file whole)',
  run(input) {
    const source = Buffer.from(input).toString('utf8');
    const flag = FLAG.exec(source)?.[1];
    const { file, problems } = readNodesFile(source, 'nodes file', flag === undefined ? {} : { nodeNetwork: flag });
    for (const p of problems) if (typeof p.message !== 'string') throw new OracleViolation('a problem without a message');
    for (const n of file.nodes)
      if (typeof n.serial !== 'string' || typeof n.hostname !== 'string') throw new OracleViolation('a node without a serial or host name');
  },
};

export default target;
