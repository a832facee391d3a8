// A target's worker: TypeScript through tsx, which a worker does not inherit from its parent.
import { register } from 'tsx/esm/api';

register();
await import('./loop.ts');
