import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the unit suite keeps every line the code said (shared/text/printed-record.ts), for the runbook's oracle after it. */
export const PRINTED_RECORD = fileURLToPath(new URL('../../.tmp/printed-lines.jsonl', import.meta.url));

/** vitest's global setup: an empty record, named in the environment every test process inherits. */
export default function setup(): void {
  mkdirSync(dirname(PRINTED_RECORD), { recursive: true });
  writeFileSync(PRINTED_RECORD, '');
  process.env.FLEET_PRINTED_LINES = PRINTED_RECORD;
}
