/**
 * An error caused by the user's input (bad flag, missing root, ...). The CLI prints its message
 * as one line and exits non-zero; any other error is a bug and keeps its stack.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
