/**
 * A start refused for a reason the operator can act on (the data directory is
 * held, the port is taken, the configuration is invalid): logged as its message
 * alone, on one line, and the process exits 1.
 */
export class StartupRefused extends Error {
  constructor(
    message: string,
    /** Fields for the log line beside the message. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'StartupRefused';
  }
}
