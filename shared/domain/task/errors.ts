import { DomainError } from '../../errors';
import type { TaskError } from '../../events/task-events';

/** A task command from an attempt that a newer attempt has replaced (another worker took the task over). */
export class StaleTaskAttemptError extends DomainError {
  readonly errorCode = 'CONCURRENT_OPERATION_DISALLOWED';
  readonly title = 'Task taken over';
}

/** The task already succeeded or failed; nothing more may happen to it. */
export class TaskFinishedError extends DomainError {
  readonly errorCode = 'CONCURRENT_OPERATION_DISALLOWED';
  readonly title = 'Task already finished';
}

/** Objects of the target environment differ from the source's and the conflict strategy is `fail`. */
export class CopyConflictError extends DomainError {
  readonly errorCode = 'DUPLICATE_ENTITY';
  readonly title = 'Conflicting objects in the target environment';
}

/** Someone else wrote to the environment a copy is filling, so the copy cannot know what it holds. */
export class TargetChangedError extends DomainError {
  readonly errorCode = 'CONCURRENT_OPERATION_DISALLOWED';
  readonly title = 'Target environment changed during the copy';
}

/** The task failed for a reason we did not foresee, again and again, and was given up. */
export class TaskGaveUpError extends DomainError {
  readonly errorCode = 'UNEXPECTED_ERROR';
  readonly title = 'Internal error';
}

/** A task error as stored in the log, back in the shape the HTTP layer renders. */
export class StoredTaskError extends DomainError {
  readonly errorCode: string;
  readonly title: string;
  constructor(stored: TaskError) {
    super(stored.message, stored.additionalInfo);
    this.errorCode = stored.code;
    this.title = stored.title;
  }
}

export function toTaskError(error: DomainError): TaskError {
  return {
    code: error.errorCode,
    title: error.title,
    message: error.message,
    ...(error.additionalInfo ? { additionalInfo: error.additionalInfo } : {}),
  };
}
