/** `tsx sntp-main.ts OFFSET_MS`: the test SNTP server as a process (to run inside a namespace); prints its port. */
import { SntpServer } from './sntp-server.js';

const server = await SntpServer.start(Number(process.argv[2] ?? 0));
console.log(server.port);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
