import { fileURLToPath } from 'node:url';

/**
 * The repository's copy of other projects' recorded test data (testdata/, see its README.md for
 * each source, commit and licence), with a trailing slash. Every reader takes the path from here,
 * resolved from this file rather than the working directory, so tests, fuzz targets and benchmarks
 * find it from wherever they are started.
 */
export const TESTDATA = fileURLToPath(new URL('../testdata/', import.meta.url));
