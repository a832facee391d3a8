import { defineConfig } from 'vitest/config';
import { LongestFirst } from './longest-first.js';

/**
 * `npm run test:e2e`: QEMU + OVMF + swtpm machines. One VM per test file at a time and two files
 * at once: a VM under TCG takes one core and ~450 MB.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: LongestFirst },
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
