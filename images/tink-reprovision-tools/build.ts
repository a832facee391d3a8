/**
 * The Template actions' bundles: images/tink-reprovision-tools/actions/<name>.ts → dist/actions/<name>.mjs,
 * one self-contained file each, which the tools image carries in /opt/fleet.
 * `node_modules/.bin/tsx images/tink-reprovision-tools/build.ts`
 */
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BUNDLE } from '../../scripts/build.js';
import { ACTIONS, type ActionName } from './actions.js';

const here = dirname(fileURLToPath(import.meta.url));
const ACTIONS_DIST = join(here, '../../dist/actions');

export async function buildActions(outdir = ACTIONS_DIST): Promise<void> {
  await build({
    ...NODE_BUNDLE,
    entryPoints: (Object.keys(ACTIONS) as ActionName[]).map((n) => join(here, 'actions', `${n}.ts`)),
    outdir,
    outExtension: { '.js': '.mjs' },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildActions();
}
