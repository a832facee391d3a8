import { describe, expect, it } from 'vitest';
import { parseCmdline, tokenize } from '../../agent/boot/cmdline.js';

const LAB =
  'BOOT_IMAGE=/vmlinuz console=tty0 console=ttyS0,115200 fleet_attest_url=https://fleetd.folly.example:8443 fleet_ntp_server=10.0.0.2 tinkerbell_tls=true BOOTIF=01-52-54-00-AB-CD-EF worker_id=52:54:00:ab:cd:ef ip=dhcp quiet\n';

describe('the kernel command line', () => {
  it("reads the lab's parameters into typed values, with nothing to say", () => {
    const { params, problems } = parseCmdline(LAB);
    expect(problems).toEqual([]);
    expect(params.attestUrl?.href).toBe('https://fleetd.folly.example:8443/');
    expect(params.ntpServer).toEqual({ host: '10.0.0.2', port: 123 });
    expect(params.tinkerbellTls).toBe(true);
    expect(params.bootMac).toBe('52:54:00:ab:cd:ef');
    expect(params.bootNic).toBeNull();
    expect(params.workerId).toBe('52:54:00:ab:cd:ef');
  });

  it('splits as the kernel does: quotes group, bare words have no value', () => {
    expect(tokenize('a="b c" d quiet e=f=g "h=i j"')).toEqual([
      ['a', 'b c'],
      ['d', null],
      ['quiet', null],
      ['e', 'f=g'],
      ['h', 'i j'],
    ]);
  });

  it("takes the boot NIC from ip= when BOOTIF is absent, and worker_id's MAC as the boot MAC", () => {
    const { params } = parseCmdline(
      'fleet_attest_url=https://f fleet_ntp_server=ntp.lab:1123 ip=10.0.1.11::10.0.1.1:255.255.255.0:n1:enp1s0:off worker_id=AA:BB:CC:DD:EE:FF',
    );
    expect(params.bootNic).toBe('enp1s0');
    expect(params.bootMac).toBe('aa:bb:cc:dd:ee:ff');
    expect(params.ntpServer).toEqual({ host: 'ntp.lab', port: 1123 });
  });

  it.each([
    [
      '',
      [
        'the kernel command line has no fleet_attest_url: the agent cannot reach the verifier; fix the command line in hookos/',
        'the kernel command line has no fleet_ntp_server: the clock stays as the firmware set it',
      ],
    ],
    ['fleet_attest_url=fleetd:8443 fleet_ntp_server=10.0.0.2', ['fleet_attest_url=fleetd:8443 is not https; the agent talks to the verifier over TLS only']],
    [
      'fleet_attest_url=http://fleetd.lab fleet_ntp_server=10.0.0.2',
      ['fleet_attest_url=http://fleetd.lab is not https; the agent talks to the verifier over TLS only'],
    ],
    ['fleet_attest_url=https:// fleet_ntp_server=10.0.0.2', [expect.stringMatching(/^fleet_attest_url=https:\/\/ is not a URL/)]],
    ['fleet_attest_url=https://f fleet_ntp_server=a:b:c', ['fleet_ntp_server=a:b:c is not a host or host:port']],
    ['fleet_attest_url=https://f fleet_ntp_server=ntp:99999', ['fleet_ntp_server=ntp:99999 is not a host or host:port']],
    ['fleet_attest_url=https://f fleet_ntp_server=n BOOTIF=52-54-00-ab-cd-ef', [expect.stringMatching(/^BOOTIF=52-54-00-ab-cd-ef is not 01- and a MAC/)]],
    ['fleet_attest_url=https://f fleet_ntp_server=n tinkerbell_tls=yes', ['tinkerbell_tls=yes is neither true nor false']],
  ])('%j: each problem is one line naming the parameter', (line, want) => {
    expect(parseCmdline(line).problems).toEqual(want);
  });

  it('never throws on garbage', () => {
    for (const g of ['\0\0\0', '"""', '= = =', 'fleet_attest_url', 'BOOTIF=', 'ip=::::::::', '\u{1F600}='.repeat(1000)])
      expect(() => parseCmdline(g)).not.toThrow();
  });
});
