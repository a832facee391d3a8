import { readFileSync } from 'node:fs';
import { loadBootConfig, type BootConfig } from '../../hookos/boot-params.js';

/** The address hookos/generated/ is made with: TEST-NET-1 (RFC 5737), never a real host. */
export const EXAMPLE_PARAMS = new Map([['SPORE_BOOTSTRAP_IP', '192.0.2.10']]);

export const LAB_YAML = readFileSync(new URL('../../hookos/lab.yaml', import.meta.url), 'utf8');

export function labConfig(): BootConfig {
  return loadBootConfig(LAB_YAML, EXAMPLE_PARAMS, 'hookos/lab.yaml');
}
