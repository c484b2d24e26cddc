import type { EventData } from '../events/envelope';

/**
 * A decider in the Emmett/Chassaing sense: `decide` is pure (no I/O, no clock,
 * no random ids — those arrive inside the command) and throws a DomainError to
 * refuse; `evolve` folds one event into the state.
 *
 * `evolve` updates the state in place and returns it: an environment's state
 * holds every instance and tuple key, and copying it per event would make each
 * command O(size). The command pipeline owns the state object and throws it
 * away whenever an append fails, so in-place updates are never observed twice.
 */
export interface Decider<Command, State, Event extends EventData> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
  /**
   * For a state that is not plain data (it holds class instances or
   * functions, which v8.serialize cannot keep): its plain form for a snapshot,
   * and the state rebuilt from that form. Without it the state is snapshotted as is.
   */
  snapshot?: { toData(state: State): unknown; fromData(data: unknown): State };
}
