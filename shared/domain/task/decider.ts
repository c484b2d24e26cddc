import type { Decider } from '../../cqrs/decider';
import { DuplicateEntityError, NotFoundError } from '../../errors';
import type { EventHandlers, EventOf, TaskEvent } from '../../events';
import { dispatch } from '../../events';
import type { TaskError } from '../../events/task-events';
import { StaleTaskAttemptError, TaskFinishedError } from './errors';

/**
 * The task stream's decider. Besides recording the request and the outcome, it
 * fences attempts: each start bumps `attempt`, and progress or an outcome from
 * an older attempt is refused, so two workers that briefly hold the same task
 * (a redelivery, a Kafka rebalance) never both report it.
 */

export interface TaskState {
  requested: boolean;
  finished: boolean;
  /** Number of the latest attempt (0 before the first start). */
  attempt: number;
  /** Whether the latest attempt recorded progress. */
  attemptProgressed: boolean;
  /** Attempts in a row, the latest included, that started and recorded no progress (a crash loop or a poison task). */
  stalledAttempts: number;
}

export type CopyRequest = EventOf<'EnvironmentCopyRequested'>['data'];

export type TaskCommand =
  | { type: 'RequestEnvironmentCopy'; request: CopyRequest }
  | { type: 'StartAttempt'; taskId: string }
  | { type: 'RecordProgress'; taskId: string; attempt: number; sourceEventsRead: number; eventsCopied: number }
  | { type: 'Succeed'; taskId: string; attempt: number; environmentId: string; sourceEventsRead: number; eventsCopied: number }
  | { type: 'Fail'; taskId: string; attempt: number; error: TaskError };

function ensureCurrent(state: TaskState, taskId: string, attempt: number): void {
  if (!state.requested) throw new NotFoundError(`Task '${taskId}' not found`);
  if (state.finished) throw new TaskFinishedError(`Task '${taskId}' has already finished`);
  if (attempt !== state.attempt) throw new StaleTaskAttemptError(`Task '${taskId}' is at attempt ${state.attempt}, not ${attempt}`);
}

function decide(command: TaskCommand, state: TaskState): TaskEvent[] {
  switch (command.type) {
    case 'RequestEnvironmentCopy':
      if (state.requested) throw new DuplicateEntityError(`Task '${command.request.taskId}' already exists`);
      return [{ type: 'EnvironmentCopyRequested', data: command.request }];
    case 'StartAttempt':
      ensureCurrent(state, command.taskId, state.attempt);
      return [{ type: 'TaskStarted', data: { taskId: command.taskId, attempt: state.attempt + 1 } }];
    case 'RecordProgress': {
      ensureCurrent(state, command.taskId, command.attempt);
      const { type: _type, ...data } = command;
      return [{ type: 'TaskProgressed', data }];
    }
    case 'Succeed': {
      ensureCurrent(state, command.taskId, command.attempt);
      const { type: _type, ...data } = command;
      return [{ type: 'TaskSucceeded', data }];
    }
    case 'Fail':
      ensureCurrent(state, command.taskId, command.attempt);
      return [{ type: 'TaskFailed', data: { taskId: command.taskId, attempt: command.attempt, error: command.error } }];
  }
}

/** What each task event changes in the state (in place). */
export const taskFold: EventHandlers<TaskEvent, TaskState> = {
  EnvironmentCopyRequested(state) {
    state.requested = true;
  },
  TaskStarted(state, { data: d }) {
    // An attempt that got somewhere resets the count; one that did not adds to it.
    state.stalledAttempts = state.attempt > 0 && state.attemptProgressed ? 1 : state.stalledAttempts + 1;
    state.attempt = d.attempt;
    state.attemptProgressed = false;
  },
  TaskProgressed(state, { data: d }) {
    if (d.attempt === state.attempt) {
      state.attemptProgressed = true;
      state.stalledAttempts = 0;
    }
  },
  TaskSucceeded(state) {
    state.finished = true;
  },
  TaskFailed(state) {
    state.finished = true;
  },
};

function evolve(state: TaskState, event: TaskEvent): TaskState {
  dispatch(taskFold, event.type, state, event);
  return state;
}

export const taskDecider: Decider<TaskCommand, TaskState, TaskEvent> = {
  initialState: () => ({ requested: false, finished: false, attempt: 0, attemptProgressed: false, stalledAttempts: 0 }),
  evolve,
  decide,
};
