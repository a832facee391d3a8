import { install } from '../install/install.js';
import { main } from '../lib/action.js';

await main('install', install);
