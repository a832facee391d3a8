/**
 * The custom fields fleet reads and writes on NetBox's dcim.device objects. The operator's
 * declaration (via Terraform) sets the first group; fleet writes the second.
 */
export const CF = {
  // declared
  class: 'class',
  /** The BMC fleetd drives (amt); its Secret is bmc-<bmc_type>. */
  bmcType: 'bmc_type',
  installDisk: 'install_disk',
  installDiskSerial: 'install_disk_serial',
  approvedRsa: 'approved_ek_hash',
  approvedEcc: 'approved_ek_hash_ecc',
  desiredAction: 'desired_action',
  lastRun: 'last_run',
  // written by fleet
  verdict: 'attest_verdict',
  attestedAt: 'attested_at',
  attestedRsa: 'attested_ek_hash',
  attestedEcc: 'attested_ek_hash_ecc',
  attestedMac: 'attested_mac',
  attestedSwitchPort: 'attested_switch_port',
  attestedBootId: 'attested_boot_id',
  attestedSecureBoot: 'attested_secure_boot',
} as const;

/** The binding fields, whose authorship the changelog must show. */
export const BINDING_FIELDS = [CF.approvedRsa, CF.approvedEcc] as const;
