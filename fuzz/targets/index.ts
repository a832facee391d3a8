/** Every fuzz target, by the name of its file here; `npm run fuzz` runs them in this order. */
export const TARGETS = ['tpm-response', 'eventlog', 'lldp', 'syslog', 'wire', 'nodes-file', 'netbox', 'kube'];
