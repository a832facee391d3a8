import { main } from '../lib/action.js';
import { wipeDisk } from '../wipe/wipe-disk.js';

await main('wipe-disk', wipeDisk);
