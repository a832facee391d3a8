// TEST DOUBLE of the docker CLI talking to an engine, for the install and wipe-disk tests (no
// Docker engine runs on these machines). It keeps the engine's state in $FAKE_DOCKER_STATE:
//   registry.json  {"offline"?: true, "images": {"<ref>": "ok" | "broken"}}  what the registry holds
//   pulled/        one file per image in the local cache
//   calls.jsonl    the argv of every call
// `pull` and `run` answer with the engine's words and exit codes (125: docker itself failed).
// `run <image> install ...` plays the Talos installer (talos-installer.mjs, the same program the
// real-engine tests put in an image).
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installer } from './talos-installer.mjs';

const state = process.env.FAKE_DOCKER_STATE;
const argv = process.argv.slice(2);
const err = (s) => process.stderr.write(`${s}\n`);
const out = (s) => process.stdout.write(`${s}\n`);

if (!state) {
  err('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?');
  process.exit(1);
}
mkdirSync(join(state, 'pulled'), { recursive: true });
appendFileSync(join(state, 'calls.jsonl'), `${JSON.stringify(argv)}\n`);
const registry = existsSync(join(state, 'registry.json')) ? JSON.parse(readFileSync(join(state, 'registry.json'), 'utf8')) : { images: {} };
const cached = (ref) => existsSync(join(state, 'pulled', encodeURIComponent(ref)));

/** `docker pull` reports on stdout; the pull inside `docker run` on stderr, as the CLI does. */
function pull(ref, quietPrefix = '', say = out) {
  const host = ref.split('/')[0];
  if (registry.offline) return `${quietPrefix}Error response from daemon: Get "https://${host}/v2/": dial tcp: lookup ${host}: no such host`;
  if (!(ref in registry.images)) return `${quietPrefix}Error response from daemon: manifest unknown`;
  const [name, tag = 'latest'] = ref.split(/:(?=[^/]*$)/);
  const fresh = !cached(ref);
  writeFileSync(join(state, 'pulled', encodeURIComponent(ref)), registry.images[ref]);
  say(`${tag}: Pulling from ${name.split('/').slice(1).join('/')}`);
  say(`Digest: sha256:${Buffer.from(ref).toString('hex').padEnd(64, '0').slice(0, 64)}`);
  say(fresh ? `Status: Downloaded newer image for ${ref}` : `Status: Image is up to date for ${ref}`);
  return null;
}

const [command, ...rest] = argv;
if (command === 'pull') {
  const failure = pull(rest[0]);
  if (failure) {
    err(failure);
    process.exit(1);
  }
  out(rest[0]);
  process.exit(0);
}
if (command !== 'run') {
  err(`docker: '${command}' is not a docker command.`);
  process.exit(1);
}

// docker run [OPTIONS] IMAGE [COMMAND] [ARG...]
const opts = { rm: false, privileged: false, logDriver: undefined, volumes: [] };
let i = 0;
for (; i < rest.length && rest[i].startsWith('-'); i++) {
  if (rest[i] === '--rm') opts.rm = true;
  else if (rest[i] === '--privileged') opts.privileged = true;
  else if (rest[i] === '--log-driver') opts.logDriver = rest[++i];
  else if (rest[i] === '-v' || rest[i] === '--volume') opts.volumes.push(rest[++i]);
  else {
    err(`unknown flag: ${rest[i]}\nSee 'docker run --help'.`);
    process.exit(125);
  }
}
const image = rest[i];
const args = rest.slice(i + 1);
if (!cached(image)) {
  err(`Unable to find image '${image}' locally`);
  const failure = pull(image, 'docker: ', err);
  if (failure) {
    err(`${failure}.\nSee 'docker run --help'.`);
    process.exit(125);
  }
}
// What a container without the privilege or /dev would get when opening the disk.
const privileged = opts.privileged && opts.volumes.includes('/dev:/dev');
process.exit(installer(args, { behaviour: readFileSync(join(state, 'pulled', encodeURIComponent(image)), 'utf8'), privileged, tmp: join(state, 'esp') }));

