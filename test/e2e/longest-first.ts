import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The QEMU files, longest first (as a quiet run on two cores measures them: the control plane's
 * scenario about 630 s, the power losses' 580 s and 300 s, ...), so that the two workers end
 * together instead of the second starting a long one last. A file not listed goes after these.
 */
const LONGEST_FIRST = [
  'runbook-control-plane',
  'runbook-power-loss',
  'runbook-power-loss-image',
  'runbook-plug-in',
  'installed-image',
  'runbook-installer-missing',
  'runbook-rufio-fails',
  'fresh-machine',
  'decoy-disks',
  'secure-boot',
  'measured-boot',
  'no-switch-port',
  'unapproved-tpm',
];

const rank = (f: TestSpecification): number => {
  const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(`/${name}.test.ts`));
  return i < 0 ? LONGEST_FIRST.length : i;
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}
