import { get } from 'node:http';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { isRoot, startDockerLab, type DockerLab } from '../docker/lab.js';
import { CrdServer } from '../kube/crd-server.js';
import { Lab, type LabOptions } from './lab.js';

/**
 * A loop test file's parts: one CRD API server and one Docker lab for the file (each lab has a
 * namespace of its own on it), and a fresh lab per test, stopped after it. Answers the lab starter.
 */
export function labPerTest(): (opts: LabOptions) => Promise<Lab> {
  let kube: CrdServer;
  let docker: DockerLab;
  let lab: Lab | undefined;
  beforeAll(async () => {
    if (isRoot) [kube, docker] = await Promise.all([CrdServer.start(), startDockerLab()]);
  }, 600_000);
  afterAll(async () => {
    await kube?.stop();
    await docker?.stop();
  });
  afterEach(async () => {
    await lab?.stop();
    lab = undefined;
  });
  return async (opts) => (lab = await Lab.start(kube, docker, opts));
}

/** A node's fetch of its config with its code, as Talos makes it: the status fleetd answers. */
export function fetchConfig(url: string, code: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${url}/v1/config/${code}`, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

/** The agent's console lines of an attestation that received a code. */
export const PASSED_WITH_CODE = [ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()];
