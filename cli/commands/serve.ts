import { serve } from '../../verifier/main.js';

export function run(args: string[]): Promise<number> {
  return serve(args);
}
