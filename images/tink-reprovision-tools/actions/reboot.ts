import { REBOOT_DETACHED, reboot, rebootNow } from '../boot/reboot.js';
import { main } from '../lib/action.js';

await main('reboot', process.env[REBOOT_DETACHED] === 'true' ? rebootNow : reboot);
