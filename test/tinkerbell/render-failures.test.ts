import { beforeAll, describe, expect, it } from 'vitest';
import { desiredHardware, desiredWorkflow } from '../../verifier/reconcile/desired.js';
import { device, MAC, NS, TALOS, templateData, URLS } from './fixtures.js';
import { renderBinary, renderWorkflow, type RenderFailure, type RenderResult } from './render.js';

// The first run on a machine builds tink-render (about 25 s).
beforeAll(() => renderBinary(), 600_000);

/**
 * Where Tinkerbell's controller refuses a Template (tink/controller/internal/workflow:
 * template_funcs.go, template_validator.go), with its own error texts; and what it lets through.
 */
const NAME = 'provision-node-1-1764480000';
const workflow = (map: Record<string, string> = { device_1: MAC }) => ({
  metadata: { name: NAME, namespace: NS },
  spec: { templateRef: 't', hardwareRef: 'node-1', hardwareMap: map },
});
const hardware = desiredHardware(device(), NS, true);

const render = (template: string, map?: Record<string, string>) => renderWorkflow({ template, workflow: workflow(map), hardware });

function failed(r: RenderResult): RenderFailure {
  if (r.ok) throw new Error(`rendered, though it should fail:\n${r.rendered}`);
  return r;
}

/** A Template with one task on {{.device_1}} and the actions given (YAML lines under actions:). */
function template(actions: string, head = 'version: "0.1"\nname: t\nglobal_timeout: 60\n'): string {
  return `${head}tasks:\n  - name: t1\n    worker: "{{.device_1}}"\n    actions:\n${actions}`;
}
const A1 = '      - name: a1\n        image: alpine:3\n        timeout: 10\n';
const RENDER = `failed to parse template with ID ${NAME}: err: template: workflow-template:`;

describe('rendering fails where Tinkerbell fails it', () => {
  it("an undefined function, and the functions Sprig's hermetic map leaves out (env, now, randAlphaNum)", async () => {
    expect(failed(await render('{{ nofunc 1 }}'))).toMatchObject({ stage: 'render', error: `${RENDER}1: function "nofunc" not defined` });
    for (const f of ['env "HOME"', 'expandenv "$HOME"', 'now', 'randAlphaNum 5', 'getHostByName "x"']) {
      expect(failed(await render(`{{ ${f} }}`)).error).toBe(`${RENDER}1: function "${f.split(' ')[0]}" not defined`);
    }
  });

  it('a key the hardwareMap lacks: missingkey=error, not "<no value>"', async () => {
    expect(failed(await render('x: {{ .no_such_key }}'))).toMatchObject({
      stage: 'render',
      error: `${RENDER}1:6: executing "workflow-template" at <.no_such_key>: map has no entry for key "no_such_key"`,
    });
  });

  it("fleet's provision Template with a Workflow whose hardwareMap lacks a key it reads", async () => {
    const wf = desiredWorkflow(device(), TALOS, 'provision', 1764480000, NS, URLS);
    delete (wf.spec!.hardwareMap as Record<string, string>).config_url;
    const r = failed(await renderWorkflow({ template: templateData('provision'), workflow: wf, hardware }));
    expect(r.stage).toBe('render');
    expect(r.error).toMatch(
      /^failed to parse template with ID provision-node-1-1764480000: err: template: workflow-template:\d+:\d+: executing "workflow-template" at <\.config_url>: map has no entry for key "config_url"$/,
    );
    expect(r.condition).toBe(`error rendering template: ${r.error}`);
  });

  it('a field the Go types lack (.Hardware) and a nil pointer on the way (fleet sets netboot, not ipxe)', async () => {
    expect(failed(await render('{{ (index .Hardware.Interfaces 0).Foo }}')).error).toBe(
      `${RENDER}1:31: executing "workflow-template" at <0>: can't evaluate field Foo in type tinkerbell.Interface`,
    );
    expect(failed(await render('{{ (index .Hardware.Interfaces 0).Netboot.IPXE.URL }}')).error).toBe(
      `${RENDER}1:31: executing "workflow-template" at <0>: nil pointer evaluating *tinkerbell.IPXE.URL`,
    );
  });

  it('output over 256 KiB; exactly 256 KiB renders', async () => {
    const body = template(A1);
    const pad = (n: number) => `${body}#${'x'.repeat(n - body.length - 2)}\n`;
    expect(pad(256 * 1024).length).toBe(262144);
    // The padding comes out of the template engine, so it counts as rendered output.
    const viaTemplate = (n: number) => `{{ "${pad(n).replace(/\n/g, '\\n').replace(/"/g, '\\"')}" }}`;
    expect((await render(viaTemplate(262144))).ok).toBe(true);
    expect(failed(await render(viaTemplate(262145)))).toMatchObject({
      stage: 'render',
      error: `failed to parse template with ID ${NAME}: err: rendered template exceeds 262144 bytes`,
    });
    expect(failed(await render('{{ range until 300000 }}x{{ end }}')).error).toBe(
      `failed to parse template with ID ${NAME}: err: rendered template exceeds 262144 bytes`,
    );
  });

  it('a template that does not parse as a Go template', async () => {
    expect(failed(await render('{{ .device_1 '))).toMatchObject({ stage: 'render', error: `${RENDER}1: unclosed action` });
  });

  it("YAML that does not parse, and a value of the wrong type: yaml.v3's error and the whole rendered text", async () => {
    const bad = template(`${A1}      - name: [\n`);
    const r = failed(await render(bad));
    expect(r.stage).toBe('parse');
    expect(r.error).toBe(`parsing yaml data: err: yaml: line 11: did not find expected node content, content: ${r.rendered}`);
    const typed = failed(await render(template('      - name: a1\n        image: alpine:3\n        timeout: 90s\n')));
    expect(typed.error).toBe(
      `parsing yaml data: err: yaml: unmarshal errors:\n  line 10: cannot unmarshal !!str \`90s\` into int64, content: ${typed.rendered}`,
    );
  });

  it('duplicate action names within a task, duplicate task names, no task at all', async () => {
    expect(failed(await render(template(A1 + A1)))).toMatchObject({
      stage: 'validate',
      error: 'validating workflow template: two actions in a task cannot have same name: a1',
    });
    const twice = `version: "0.1"\nname: t\ntasks:\n  - name: t1\n    worker: "{{.device_1}}"\n    actions:\n${A1}  - name: t1\n    worker: "{{.device_1}}"\n    actions:\n${A1}`;
    expect(failed(await render(twice)).error).toBe('validating workflow template: two tasks in a template cannot have same name (t1)');
    expect(failed(await render('version: "0.1"\nname: t\ntasks: []\n')).error).toBe(
      'validating workflow template: template must have at least one task defined',
    );
  });

  it('names empty or of 200 bytes or more (the bound is strict), for the workflow, a task and an action', async () => {
    const msg = (n: string) => `validating workflow template: name cannot be empty or have more than 200 characters: ${n}`;
    expect(failed(await render(template(A1, 'version: "0.1"\nglobal_timeout: 60\n'))).error).toBe(msg(''));
    const long = 'a'.repeat(200);
    expect(failed(await render(template(A1.replace('a1', long)))).error).toBe(msg(long));
    expect((await render(template(A1.replace('a1', 'a'.repeat(199))))).ok).toBe(true);
    expect(failed(await render(template(A1).replace('name: t1', 'name: ""'))).error).toBe(msg(''));
  });

  it('an image that is no reference (distribution/reference): upper case, empty', async () => {
    expect(failed(await render(template(A1.replace('alpine:3', 'Alpine:3')))).error).toBe(
      'validating workflow template: invalid action image (Alpine:3): invalid reference format: repository name (library/Alpine) must be lowercase',
    );
    expect(failed(await render(template('      - name: a1\n        timeout: 10\n'))).error).toBe(
      'validating workflow template: invalid action image (): invalid reference format',
    );
  });

  it('a task whose worker renders empty: the whole template data in the error', async () => {
    const r = failed(await render(template(A1), { device_1: '' }));
    expect(r.stage).toBe('validate');
    // Go's %v of the data map: the legacy struct with its pointers' addresses, then the maps.
    expect(r.error.startsWith('failed to render template, empty hardware address (map[Hardware:{[/dev/nvme0n1] [{0x')).toBe(true);
    expect(r.error).toContain(' device_1: hardware:map[apiVersion:tinkerbell.org/v1alpha1 kind:Hardware metadata:map[labels:map[');
    expect(r.error.endsWith(' status:map[]] references:map[]])')).toBe(true);
  });
});

describe('and what Tinkerbell lets through', () => {
  it("a parameter holding a double quote ends the Template's string early: wipe-disk gets another serial than the Workflow carries (so fleetd starts no such run)", async () => {
    const wf = desiredWorkflow(device('node-1', { installDiskSerial: 'S4EV" #' }), TALOS, 'provision', 1764480000, NS, URLS);
    const r = await renderWorkflow({ template: templateData('provision'), workflow: wf, hardware });
    if (!r.ok) throw new Error(r.error);
    const wipe = r.tasks[0]!.actions.find((a) => a.name === 'wipe-disk')!;
    expect(wipe.environment?.INSTALL_DISK_SERIAL).toBe('S4EV');
  });

  it('a task without actions, an action without timeout or command, unknown keys, unquoted booleans and numbers as strings', async () => {
    const none = await render('version: "0.1"\nname: t\ntasks:\n  - name: t1\n    worker: "{{.device_1}}"\n');
    expect(none.ok && none.tasks).toEqual([expect.objectContaining({ name: 't1', agentID: MAC, actions: [] })]);
    const loose = await render(
      template('      - name: a1\n        image: alpine\n        retries: 3\n        environment:\n          X: true\n          Y: 3\n'),
    );
    if (!loose.ok) throw new Error(loose.error);
    expect(loose.globalTimeout).toBe(60);
    const a = loose.tasks[0]!.actions[0]!;
    expect(a).toEqual({ id: a.id, name: 'a1', image: 'alpine', environment: { X: 'true', Y: '3' }, state: 'PENDING' });
  });

  it("Tinkerbell's functions: formatPartition, netmaskToPrefixLength, toYaml, fromYaml; Sprig 3.3.0's sha512sum and camelcase", async () => {
    const r = await render(
      [
        '# {{ formatPartition "/dev/nvme0n1" 2 }} {{ formatPartition "/dev/sda" 1 }} {{ formatPartition "/dev/disk/by-id/x" 3 }}',
        '# {{ netmaskToPrefixLength "255.255.255.0" }} {{ netmaskToPrefixLength "255.0.255.0" }}',
        '# {{ (fromYaml "a: [1, 2]").a | toJson }} {{ toYaml (dict "b" 1 "a" "x") | replace "\\n" "," }}',
        '# {{ "abc" | sha512sum | trunc 12 }} {{ camelcase "foo_bar" }} {{ (index .Hardware.Interfaces 0).DHCP.MAC }} {{ .hardware.spec.disks }}',
        template(A1),
      ].join('\n'),
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.rendered.split('\n').slice(0, 4)).toEqual([
      '# /dev/nvme0n1p2 /dev/sda1 /dev/disk/by-id/x-part3',
      '# 24 0',
      '# [1,2] a: x,b: 1',
      `# ddaf35a19361 FooBar ${MAC} [map[device:/dev/nvme0n1]]`,
    ]);
    expect(failed(await render('{{ netmaskToPrefixLength "x" }}')).error).toBe(
      `${RENDER}1:3: executing "workflow-template" at <netmaskToPrefixLength "x">: error calling netmaskToPrefixLength: invalid netmask format: x`,
    );
    expect(failed(await render('{{ netmaskToPrefixLength "::1" }}')).error).toBe(
      `${RENDER}1:3: executing "workflow-template" at <netmaskToPrefixLength "::1">: error calling netmaskToPrefixLength: netmask must be IPv4: ::1`,
    );
    expect(failed(await render('{{ fromYaml "" }}')).error).toBe(
      `${RENDER}1:3: executing "workflow-template" at <fromYaml "">: error calling fromYaml: fromYaml: empty YAML input`,
    );
  });

  it("the condition message joins the denied references' errors before the render's", async () => {
    const hw = { ...hardware, spec: { ...hardware.spec, references: { cfg: { name: 'x', namespace: NS, group: '', version: 'v1', resource: 'configmaps' } } } };
    const r = failed(await renderWorkflow({ template: '{{ .references.cfg }}', workflow: workflow(), hardware: hw }));
    expect(r.condition).toBe(`error rendering template: reference denied\n${r.error}`);
    expect(r.error).toBe(`${RENDER}1:14: executing "workflow-template" at <.references.cfg>: map has no entry for key "cfg"`);
  });
});
