import { reboot } from '../boot/reboot.js';
import { main } from '../lib/action.js';

await main('reboot', reboot);
