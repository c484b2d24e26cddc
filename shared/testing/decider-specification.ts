import type { Decider } from '../cqrs/decider';
import type { EventData } from '../events/envelope';

/**
 * Given/when/then for deciders, so tests read as specifications:
 *   spec.given([...events]).when(command).then([...events])
 *   spec.given([...events]).when(command).thenThrows(NotFoundError, /message/)
 */
export function deciderSpecification<C, S, E extends EventData>(decider: Decider<C, S, E>) {
  return {
    given(events: E[]) {
      return {
        when(command: C) {
          const run = () =>
            decider.decide(
              command,
              events.reduce((state, e) => decider.evolve(state, e), decider.initialState()),
            );
          return {
            then(expected: E[]) {
              expect(run()).toEqual(expected);
            },
            thenContains(expected: Array<Partial<E>>) {
              const actual = run();
              for (const e of expected) expect(actual).toContainEqual(expect.objectContaining(e));
            },
            thenThrows(errorType: new (...args: never[]) => Error, message?: RegExp) {
              let thrown: unknown;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              expect(thrown).toBeInstanceOf(errorType);
              if (message) expect((thrown as Error).message).toMatch(message);
            },
          };
        },
      };
    },
  };
}
