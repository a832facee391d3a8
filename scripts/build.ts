/**
 * `npm run build`: one-file ESM bundles. dist/fleet.mjs is the `fleet` CLI (the package's bin),
 * with dist/nodes-file-worker.mjs beside it; dist/agent.mjs is what HookOS's tink-agent-autoid
 * container runs.
 */
import { build, type BuildOptions } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One ESM file for Node 20 per entry point: the settings every fleet bundle shares. */
export const NODE_BUNDLE: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __fleetRequire } from 'node:module'; const require = __fleetRequire(import.meta.url);" },
};

/**
 * The agent ships as one file plus cap.node (the LLDP capture's libpcap addon): cap requires
 * './build/Release/cap.node' by a literal path, so esbuild copies the addon to the bundle's
 * directory as cap.node and the bundle requires it from beside itself. Minified: every netboot
 * fetches it, and TypeBox alone is 200 kB unminified.
 */
export const AGENT_BUNDLE: BuildOptions = { ...NODE_BUNDLE, loader: { '.node': 'copy' }, assetNames: '[name]', minify: true };

/** dist/agent.mjs and cap.node, or the same into another directory (tests and the bench). */
export async function buildAgent(outDir = join(root, 'dist')): Promise<string> {
  const outfile = join(outDir, 'agent.mjs');
  await build({ ...AGENT_BUNDLE, entryPoints: [join(root, 'agent/entry.ts')], outfile });
  return outfile;
}

/** dist/fleet.mjs, or the same into another directory (the bench), where node_modules must resolve. */
export async function buildFleet(outDir = join(root, 'dist')): Promise<string> {
  const outfile = join(outDir, 'fleet.mjs');
  // better-sqlite3 and unix-dgram (the syslog receiver's journal socket) find their native addons
  // through `bindings`, which a bundle cannot follow: they stay in node_modules beside dist/, and
  // so does cap for the CLI. The agent bundle needs no better-sqlite3.
  await build({ ...NODE_BUNDLE, entryPoints: [join(root, 'cli/fleet.ts')], outfile, external: ['better-sqlite3', 'cap', 'unix-dgram'] });
  // The worker thread fleetd parses a changed nodes file in: the bundle starts it from beside itself.
  await build({
    ...NODE_BUNDLE,
    entryPoints: [join(root, 'verifier/inventory/embedded/nodes-file-worker.ts')],
    outfile: join(outDir, 'nodes-file-worker.mjs'),
  });
  await chmod(outfile, 0o755);
  return outfile;
}

export async function buildAll(): Promise<void> {
  await buildFleet();
  await buildAgent();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildAll();
}
