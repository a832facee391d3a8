import { describe, expect, it } from 'vitest';
import { parseCmdline, tokenize } from '../../agent/boot/cmdline.js';
import { CMDLINE_LINES } from '../../agent/boot/lines.js';

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
    ['', [CMDLINE_LINES.noAttestUrl(), CMDLINE_LINES.noNtpServer()]],
    ['fleet_attest_url=fleetd:8443 fleet_ntp_server=10.0.0.2', [CMDLINE_LINES.attestUrlNotHttps('fleetd:8443')]],
    ['fleet_attest_url=http://fleetd.lab fleet_ntp_server=10.0.0.2', [CMDLINE_LINES.attestUrlNotHttps('http://fleetd.lab')]],
    ['fleet_attest_url=https:// fleet_ntp_server=10.0.0.2', [CMDLINE_LINES.attestUrlNotUrl('https://')]],
    ['fleet_attest_url=https://f fleet_ntp_server=a:b:c', [CMDLINE_LINES.ntpServerNotHost('a:b:c')]],
    ['fleet_attest_url=https://f fleet_ntp_server=ntp:99999', [CMDLINE_LINES.ntpServerNotHost('ntp:99999')]],
    ['fleet_attest_url=https://f fleet_ntp_server=n BOOTIF=52-54-00-ab-cd-ef', [CMDLINE_LINES.bootifNotMac('52-54-00-ab-cd-ef')]],
    ['fleet_attest_url=https://f fleet_ntp_server=n tinkerbell_tls=yes', [CMDLINE_LINES.tinkerbellTlsNotBoolean('yes')]],
  ])('%j: each problem is one line naming the parameter', (line, want) => {
    expect(parseCmdline(line).problems).toEqual(want);
  });

  it('never throws on garbage', () => {
    for (const g of ['\0\0\0', '"""', '= = =', 'fleet_attest_url', 'BOOTIF=', 'ip=::::::::', '\u{1F600}='.repeat(1000)])
      expect(() => parseCmdline(g)).not.toThrow();
  });
});
