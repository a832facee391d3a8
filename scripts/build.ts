/**
 * `npm run build`: one-file ESM bundles. dist/fleet.mjs is the `fleet` CLI (the package's bin);
 * dist/agent.mjs is what HookOS's tink-agent-autoid container runs.
 */
import { build, type BuildOptions } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const common: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __fleetRequire } from 'node:module'; const require = __fleetRequire(import.meta.url);" },
};

export async function buildAll(): Promise<void> {
  // better-sqlite3 finds its native addon through `bindings`, which a bundle cannot follow: it
  // stays in node_modules beside dist/. The agent bundle needs no native addon of it.
  await build({ ...common, entryPoints: [join(root, 'cli/fleet.ts')], outfile: join(root, 'dist/fleet.mjs'), external: ['better-sqlite3'] });
  await build({ ...common, entryPoints: [join(root, 'agent/entry.ts')], outfile: join(root, 'dist/agent.mjs') });
  await chmod(join(root, 'dist/fleet.mjs'), 0o755);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildAll();
}
