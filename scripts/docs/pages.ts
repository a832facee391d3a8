import { actionLinesPage } from './action-lines-page.js';
import { approveLinesPage } from './approve-lines-page.js';
import { auditPage } from './audit-page.js';
import { consoleLinesPage } from './console-lines-page.js';
import { errorsPage } from './errors-page.js';
import type { DocPage } from './page.js';
import { journalLinesPage } from './journal-lines-page.js';
import { metricsPage } from './metrics-page.js';
import { servePage } from './serve-page.js';
import { verdictsPage } from './verdicts-page.js';

/** Every page npm run docs writes. */
export const PAGES: readonly DocPage[] = [
  errorsPage,
  servePage,
  journalLinesPage,
  consoleLinesPage,
  actionLinesPage,
  verdictsPage,
  metricsPage,
  auditPage,
  approveLinesPage,
];
