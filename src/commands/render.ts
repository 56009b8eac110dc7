import type { CommandContext } from '../cli.js';
import type { RenderOptions } from '../options.js';
import { RuntimeFailure } from '../errors.js';

export async function render(_options: RenderOptions, _ctx: CommandContext): Promise<void> {
  await Promise.resolve();
  throw new RuntimeFailure('render: being implemented');
}
