import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The QEMU machines run on their own after these (test/e2e/vitest.config.ts): they need both cores.
    exclude: [...configDefaults.exclude, 'test/e2e/**', 'test/runbook/**'],
    // Every line the code says, kept for the runbook's oracle (test/runbook/), which runs after.
    globalSetup: ['test/runbook/printed-record.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Both cores: each file owns its ports, namespaces and loop devices (vitest's default here is one).
    maxWorkers: 2,
  },
});
