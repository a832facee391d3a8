import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FleetError, errorMessage } from '../../../shared/errors.js';
import type { NodesFile, Problem } from './nodes-file.js';

/**
 * The worker's code: beside the bundle, which the build writes as nodes-file-worker.mjs; or, run
 * from the source tree, this module's TypeScript sibling, loaded through tsx, which a worker does
 * not inherit: a one-line ES module registers it first.
 */
function workerEntry(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./nodes-file-worker.mjs', import.meta.url);
  // The ES module tsx exports as tsx/esm/api: require.resolve would name its CommonJS twin.
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!.import.default;
  const tsx = pathToFileURL(join(dirname(pkg), api)).href;
  const entry = new URL('./nodes-file-worker.ts', import.meta.url).href;
  return new URL(
    `data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`)}`,
  );
}

/** readNodesFile() on a worker thread: the same answer, without blocking the event loop while it parses. */
export function readNodesFileOffThread(source: string, name: string, opts: { nodeNetwork?: string }): Promise<{ file: NodesFile; problems: Problem[] }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry(), { workerData: { source, name, opts } });
    let answered = false;
    worker.once('message', (m: { file: NodesFile; problems: Problem[] }) => {
      answered = true;
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', (err) => reject(new FleetError('nodes-invalid', `cannot parse ${name} off the event loop: ${errorMessage(err)}`)));
    worker.once('exit', (code) => {
      if (!answered) reject(new FleetError('nodes-invalid', `cannot parse ${name} off the event loop: its worker exited (${code})`));
    });
  });
}
