import type { CommandContext } from '../cli.js';
import type { AmisOptions } from '../options.js';
import { RuntimeFailure } from '../errors.js';

export async function amis(_options: AmisOptions, _ctx: CommandContext): Promise<void> {
  await Promise.resolve();
  throw new RuntimeFailure('amis: being implemented');
}
