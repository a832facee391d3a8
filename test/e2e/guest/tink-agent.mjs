// tink-agent for the e2e guests (HookOS's worker), as Tinkerbell's agent behaves
// (tinkerbell/tinkerbell tink/agent/agent.go, internal/runtime/docker/docker.go): ask the server for
// this worker's next action, report it running, run it as a privileged container on this boot's
// Docker engine under the action's timeout, report success, failure or timeout, and ask again.
// No action is not an error: it backs off (at most 5 s) and asks again, for as long as the boot lasts.
//   node tink-agent.mjs <server URL> <worker id> <results dir>
// Each action's output goes to <results dir>/<action>.out (never the console), its state to .state.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [server, agentId, out] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = (s) => console.log(`tink-agent: ${s}`);

async function call(path, body) {
  const res = await fetch(`${server}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

/** Reports until the server takes it: giving up would leave the Workflow stuck. */
async function report(action, state, times = {}) {
  for (let delay = 500; ; delay = Math.min(delay * 2, 5000)) {
    const r = await call('/v1/report', {
      workflowId: action.workflowId,
      taskId: action.taskId,
      actionId: action.actionId,
      agentId,
      state,
      message: state === 'running' ? 'running action' : 'action completed',
      ...times,
    }).catch((err) => ({ status: 0, body: { message: String(err) } }));
    if (r.status === 200) return;
    say(`error reporting action, retrying: ${r.body.message ?? r.status}`);
    await sleep(delay);
  }
}

const docker = (args) => spawnSync('docker', args, { encoding: 'utf8' });

/** The pull the real agent makes (5 tries); an image already in the engine's cache will do. */
async function pull(image) {
  for (let i = 1; i <= 5; i++) {
    const r = docker(['pull', image]);
    if (r.status === 0) return null;
    if (docker(['image', 'inspect', image]).status === 0) return null;
    if (i === 5) return (r.stderr || r.stdout).trim().split('\n').at(-1);
    await sleep(250 * 2 ** i);
  }
}

/** Runs one action; answers 'success', 'failure' or 'timeout'. */
async function execute(action) {
  const log = createWriteStream(join(out, `${action.name}.out`));
  const failed = await pull(action.image);
  if (failed) {
    say(`${action.name}: docker: ${failed}`);
    return 'failure';
  }
  const name = `${action.name}-${action.actionId}`.replace(/[^a-zA-Z0-9_.-]/g, '-');
  const create = ['create', '--privileged', '--name', name, ...action.env.flatMap((e) => ['-e', e]), ...action.volumes.flatMap((v) => ['-v', v])];
  if (action.pid) create.push('--pid', action.pid);
  if (action.network) create.push('--network', action.network);
  const made = docker([...create, action.image, ...action.command]);
  if (made.status !== 0) {
    say(`${action.name}: error creating container: ${made.stderr.trim()}`);
    return 'failure';
  }
  try {
    const child = spawn('docker', ['start', '--attach', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Not to the console: Tinkerbell's agent leaves a container's output to Docker's log driver
    // (syslog, in HookOS), so what the console shows is what the action itself wrote there.
    for (const s of [child.stdout, child.stderr]) s.on('data', (b) => log.write(b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      docker(['stop', '--time', '5', name]);
    }, action.timeout * 1000);
    const code = await new Promise((r) => child.once('close', (c) => r(c)));
    clearTimeout(timer);
    if (timedOut) return 'timeout';
    return code === 0 ? 'success' : 'failure';
  } finally {
    docker(['rm', '--force', name]);
    log.end();
  }
}

for (let delay = 500; ; ) {
  const next = await call('/v1/action', { agentId }).catch((err) => ({ status: 0, body: { message: String(err) } }));
  if (next.status !== 200) {
    await sleep(delay);
    delay = Math.min(delay * 1.5, 5000);
    continue;
  }
  delay = 500;
  const action = next.body;
  say(`received action ${action.name}`);
  await report(action, 'running');
  const executionStart = new Date().toISOString();
  const state = await execute(action);
  const executionStop = new Date().toISOString();
  writeFileSync(join(out, `${action.name}.state`), `${state}\n`);
  say(`${action.name} ${state}`);
  await report(action, state, {
    executionStart,
    executionStop,
    executionDuration: `${Math.round((Date.parse(executionStop) - Date.parse(executionStart)) / 1000)}s`,
  });
}
