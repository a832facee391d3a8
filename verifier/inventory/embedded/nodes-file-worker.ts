/**
 * The worker thread a nodes-file change is parsed in (nodes-file-thread.ts), so fleetd's event
 * loop keeps answering while a file of thousands of nodes is read.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readNodesFile } from './nodes-file.js';

const { source, name, opts } = workerData as { source: string; name: string; opts: { nodeNetwork?: string } };
parentPort?.postMessage(readNodesFile(source, name, opts));
