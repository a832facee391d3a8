/**
 * Tinkerbell's own Template rendering and Workflow validation, for tests: tink-render (render/,
 * built by build.sh from Debian's Go and Sprig packages, once per machine) given the Template's
 * spec.data, the Workflow and its Hardware, answers what Tinkerbell's controller would: the
 * rendered YAML and the status tasks, or the step that failed with Tinkerbell's error text.
 */
import { execFile, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TinkTask } from './status.js';

const BUILD = fileURLToPath(new URL('./build.sh', import.meta.url));
/** Where the sources and binary are kept between runs (build.sh's default). */
export const RENDER_DIR = join(tmpdir(), 'fleet-tink-render');

export interface RenderRequest {
  /** The Template's spec.data. */
  template: string;
  /** The Workflow object (its metadata.name and spec are read). */
  workflow: unknown;
  /** The Hardware its spec.hardwareRef names; omitted only when that is empty. */
  hardware?: unknown;
}

export interface RenderSuccess {
  ok: true;
  rendered: string;
  /** status.tasks as the controller writes them: fresh IDs, every action PENDING. */
  tasks: TinkTask[];
  globalTimeout: number;
  /** status.agentID: the first task's worker. */
  agentID: string;
}

export interface RenderFailure {
  ok: false;
  /** input: this tool refused the request (Tinkerbell would not have rendered at all). */
  stage: 'render' | 'parse' | 'validate' | 'input';
  /** The error Tinkerbell's render returns. */
  error: string;
  /** The message of the TemplateRenderedSuccess condition it then writes (empty for input). */
  condition: string;
  /** The rendered text, when rendering itself worked. */
  rendered?: string;
}

export type RenderResult = RenderSuccess | RenderFailure;

let binary: Promise<string> | undefined;

/** The binary, built on first use; callers at once share one build (build.sh locks across processes). */
export function renderBinary(): Promise<string> {
  binary ??= new Promise<string>((resolve, reject) => {
    execFile('sh', [BUILD, RENDER_DIR], { timeout: 900_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`building tink-render failed (${err.code ?? err.signal}):\n${stderr}\n${stdout}`));
      else resolve(stdout.trim().split('\n').at(-1)!);
    });
  }).catch((e: unknown) => {
    binary = undefined; // a later caller tries again, and sees the failure again if it persists
    throw e;
  });
  return binary;
}

export async function renderWorkflow(req: RenderRequest): Promise<RenderResult> {
  const bin = await renderBinary();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    // A renderer that died mid-request resets its pipes; its exit code below says so.
    for (const s of [child.stdin, child.stdout, child.stderr]) s.on('error', () => undefined);
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      if (code !== 0) return reject(new Error(`tink-render exited ${code}: ${Buffer.concat(err).toString('utf8')}`));
      const a = JSON.parse(text) as RenderResult;
      resolve(a.ok ? a : { ...a, condition: a.condition ?? '' });
    });
    child.stdin.end(JSON.stringify(req));
  });
}
