import { DuplicateEntityError, NotFoundError } from '../../errors';
import type { TaskEvent } from '../../events';
import { deciderSpecification } from '../../testing/decider-specification';
import { StaleTaskAttemptError, TaskFinishedError } from './errors';
import { taskDecider, type CopyRequest } from './decider';

const spec = deciderSpecification(taskDecider);
const taskId = 'task-1';
const request: CopyRequest = {
  taskId,
  organizationId: 'org',
  projectId: 'proj',
  source: { ref: 'production', environmentId: 'env-1' },
  target: {
    kind: 'new',
    environmentId: 'env-2',
    key: 'staging',
    name: 'Staging',
    description: '',
    customBranchName: '',
    jwks: {},
    settings: {},
  },
  scope: { facts: false },
  asOf: null,
  sourceEventsTotal: 10,
};
const requested: TaskEvent = { type: 'EnvironmentCopyRequested', data: request };
const started = (attempt: number): TaskEvent => ({ type: 'TaskStarted', data: { taskId, attempt } });
const error = { code: 'NOT_FOUND', title: 'Not found', message: "Environment 'x' not found" };

describe('task decider', () => {
  it('records a request once', () => {
    spec.given([]).when({ type: 'RequestEnvironmentCopy', request }).then([requested]);
    spec.given([requested]).when({ type: 'RequestEnvironmentCopy', request }).thenThrows(DuplicateEntityError);
  });

  it('numbers attempts from 1, each start taking over from the previous one', () => {
    spec
      .given([requested])
      .when({ type: 'StartAttempt', taskId })
      .then([started(1)]);
    spec
      .given([requested, started(1)])
      .when({ type: 'StartAttempt', taskId })
      .then([started(2)]);
    spec.given([]).when({ type: 'StartAttempt', taskId }).thenThrows(NotFoundError);
  });

  it('takes progress and outcomes only from the current attempt', () => {
    const given = spec.given([requested, started(1), started(2)]);
    given
      .when({ type: 'RecordProgress', taskId, attempt: 2, sourceEventsRead: 5, eventsCopied: 4 })
      .then([{ type: 'TaskProgressed', data: { taskId, attempt: 2, sourceEventsRead: 5, eventsCopied: 4 } }]);
    given.when({ type: 'RecordProgress', taskId, attempt: 1, sourceEventsRead: 5, eventsCopied: 4 }).thenThrows(StaleTaskAttemptError);
    given
      .when({ type: 'Succeed', taskId, attempt: 1, environmentId: 'env-2', sourceEventsRead: 10, eventsCopied: 9 })
      .thenThrows(StaleTaskAttemptError);
    given.when({ type: 'Fail', taskId, attempt: 2, error }).then([{ type: 'TaskFailed', data: { taskId, attempt: 2, error } }]);
  });

  it('refuses anything after the outcome, so a task finishes once', () => {
    const succeeded: TaskEvent = {
      type: 'TaskSucceeded',
      data: { taskId, attempt: 1, environmentId: 'env-2', sourceEventsRead: 10, eventsCopied: 9 },
    };
    const given = spec.given([requested, started(1), succeeded]);
    given.when({ type: 'StartAttempt', taskId }).thenThrows(TaskFinishedError);
    given.when({ type: 'Fail', taskId, attempt: 1, error }).thenThrows(TaskFinishedError);
    given
      .when({ type: 'Succeed', taskId, attempt: 1, environmentId: 'env-2', sourceEventsRead: 10, eventsCopied: 9 })
      .thenThrows(TaskFinishedError);
  });

  it('counts the attempts in a row that made no progress, and resets on progress', () => {
    const fold = (events: TaskEvent[]) => events.reduce((state, e) => taskDecider.evolve(state, e), taskDecider.initialState());
    const progressed = (attempt: number): TaskEvent => ({
      type: 'TaskProgressed',
      data: { taskId, attempt, sourceEventsRead: 1, eventsCopied: 1 },
    });
    expect(fold([requested]).stalledAttempts).toBe(0);
    expect(fold([requested, started(1), started(2), started(3)]).stalledAttempts).toBe(3);
    expect(fold([requested, started(1), started(2), progressed(2)]).stalledAttempts).toBe(0);
    expect(fold([requested, started(1), progressed(1), started(2)]).stalledAttempts).toBe(1);
    expect(fold([requested, started(1), progressed(1), started(2), started(3)]).stalledAttempts).toBe(2);
    // Progress of an older attempt, appended late, does not count for the current one.
    expect(fold([requested, started(1), started(2), progressed(1)]).stalledAttempts).toBe(2);
  });
});
