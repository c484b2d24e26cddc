import pino from 'pino';
import type { Services } from '../command-service/http/services';
import { warmCommandState } from './warm-command-state';

const silent = pino({ level: 'silent' });

function fakeServices(environments: () => Promise<Array<{ id: string }>>, loaded: string[]): Services {
  return {
    readModels: { environments: { find: environments } },
    envCommands: { currentState: async (streamId: string) => void loaded.push(streamId) },
  } as unknown as Services;
}

describe('warmCommandState', () => {
  it("loads every environment's command state, one after another", async () => {
    const loaded: string[] = [];
    await warmCommandState(
      fakeServices(async () => [{ id: 'a' }, { id: 'b' }], loaded),
      silent,
      () => false,
    );
    expect(loaded).toEqual(['env-a', 'env-b']);
  });

  it('stops between environments once the service is stopping', async () => {
    const loaded: string[] = [];
    await warmCommandState(
      fakeServices(async () => [{ id: 'a' }, { id: 'b' }], loaded),
      silent,
      () => loaded.length > 0,
    );
    expect(loaded).toEqual(['env-a']);
  });

  it('never rejects: a failure only costs the first write its load', async () => {
    const failing = fakeServices(async () => {
      throw new Error('read models unavailable');
    }, []);
    await expect(warmCommandState(failing, silent, () => false)).resolves.toBeUndefined();
  });
});
