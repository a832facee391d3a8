import { nextBoot } from '../boot/next-boot.js';
import { main } from '../lib/action.js';

await main('next-boot', nextBoot);
