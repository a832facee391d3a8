/**
 * How tests start a TypeScript entry point as a process: node itself with tsx's loader, one process.
 * (node_modules/.bin/tsx runs the script in a child of its own, which outlives a SIGKILL to it.)
 */
export const TSX = [process.execPath, '--import', 'tsx'] as const;
