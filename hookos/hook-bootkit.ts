/**
 * What hook-bootkit starts from a command line. hook-bootkit reads no spec file: it splits
 * /proc/cmdline on single spaces, pulls `tink_worker_image` and creates one container named
 * tink-worker from it, privileged, in the host network namespace, with /worker and Docker's socket
 * bound, and the Tink parameters in its environment (tinkerbell/hook, images/hook-bootkit/main.go:
 * parseCmdLine, then ContainerCreate). fleet's image is that container, so the command line is its
 * whole spec; this renders the Docker Engine API body hook-bootkit sends, for review, for the tests,
 * and to start the same container by hand (POST /containers/create?name=tink-worker).
 */

/** Kernel parameter → environment variable, as hook-bootkit passes them (same order). */
const ENV_FROM_CMDLINE: ReadonlyArray<readonly [string, string]> = [
  ['DOCKER_REGISTRY', 'docker_registry'],
  ['REGISTRY_USERNAME', 'registry_username'],
  ['REGISTRY_PASSWORD', 'registry_password'],
  ['TINKERBELL_GRPC_AUTHORITY', 'grpc_authority'],
  ['TINKERBELL_TLS', 'tinkerbell_tls'],
  ['TINKERBELL_INSECURE_TLS', 'tinkerbell_insecure_tls'],
  ['WORKER_ID', 'worker_id'],
  ['ID', 'worker_id'],
  ['HTTP_PROXY', 'HTTP_PROXY'],
  ['HTTPS_PROXY', 'HTTPS_PROXY'],
  ['NO_PROXY', 'NO_PROXY'],
];

/** The body of Docker's POST /containers/create; hook-bootkit names the container tink-worker. */
export interface BootkitContainer {
  Image: string;
  Env: string[];
  HostConfig: {
    Privileged: true;
    NetworkMode: 'host';
    Mounts: Array<{ Type: 'bind'; Source: string; Target: string }>;
  };
}

/** hook-bootkit's reading: single spaces, key=value, the last occurrence wins. */
function bootkitParams(cmdline: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const word of cmdline.split(' ')) {
    const [key, value] = word.trim().split(/=(.*)/s, 2);
    if (key && value !== undefined) params.set(key, value);
  }
  return params;
}

export function bootkitContainer(cmdline: string): BootkitContainer {
  const params = bootkitParams(cmdline);
  return {
    Image: params.get('tink_worker_image') ?? '',
    Env: ENV_FROM_CMDLINE.map(([env, key]) => `${env}=${params.get(key) ?? ''}`),
    HostConfig: {
      // Why the agent needs each (seed 000, "Attestation before work"): /dev/tpmrm0 and mounting
      // securityfs for the event log need privilege; the boot NIC's MAC, the LLDP capture and the
      // SNTP clock need the host's network; the install code goes to the host's /worker.
      Privileged: true,
      NetworkMode: 'host',
      Mounts: [
        { Type: 'bind', Source: '/worker', Target: '/worker' },
        { Type: 'bind', Source: '/var/run/docker.sock', Target: '/var/run/docker.sock' },
      ],
    },
  };
}
