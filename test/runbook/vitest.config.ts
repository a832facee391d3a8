import { defineConfig } from 'vitest/config';

/** The runbook's oracle, after the unit suite wrote what the code said (test/runbook/printed-record.ts). */
export default defineConfig({
  test: {
    include: ['test/runbook/**/*.test.ts'],
  },
});
