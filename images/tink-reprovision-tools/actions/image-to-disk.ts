import { imageToDisk } from '../image/image-to-disk.js';
import { main } from '../lib/action.js';

await main('image-to-disk', imageToDisk);
