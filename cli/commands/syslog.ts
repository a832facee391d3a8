import { runSyslog } from '../../verifier/syslog/command.js';

export function run(args: string[]): Promise<number> {
  return runSyslog(args);
}
