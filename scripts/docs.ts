/** `npm run docs`: writes every generated page of docs/ (scripts/docs/pages.ts lists them). */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGES } from './docs/pages.js';

for (const page of PAGES) {
  const file = fileURLToPath(new URL(`../${page.path}`, import.meta.url));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, page.render());
  console.log(`wrote ${page.path}`);
}
