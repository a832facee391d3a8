import { main } from '../../agent/main.js';

export function run(args: string[]): Promise<number> {
  return main(args);
}
