// Where a command's progress and debug lines go (commands/context.ts `logger` writes them to stderr). A leaf, so that
// the AWS edge (ami/) can log without importing the commands' room above it.
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}
