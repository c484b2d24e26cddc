import { randomBytes } from 'node:crypto';
import { InvalidRequestError, ValidationError } from '../../errors';
import type { EnvEvent } from '../../events';
import { SecretBox } from '../../secrets/secret-box';
import { deciderSpecification } from '../../testing/decider-specification';
import type { EnvCommand } from './commands';
import { envDecider } from './decider';

const spec = deciderSpecification(envDecider);
const box = new SecretBox(randomBytes(32));
const create = (
  secret: string | Record<string, string>,
  authMechanism: 'Bearer' | 'Basic' | 'Headers' = 'Bearer',
): Extract<EnvCommand, { type: 'CreateProxyConfig' }> => ({
  type: 'CreateProxyConfig',
  id: 'p-1',
  key: 'billing',
  name: 'Billing',
  authMechanism,
  secret: box.seal(secret),
  mappingRules: [],
});
const created = (secret: string, authMechanism: 'Bearer' | 'Basic' = 'Bearer'): EnvEvent => {
  const { type: _, ...data } = create(secret, authMechanism);
  return { type: 'ProxyConfigCreated', data };
};

/** The decider sees secrets sealed only: it checks their form against the auth mechanism, never their value. */
describe('proxy config secrets in the decider', () => {
  it('appends the envelope it was given, as it is', () => {
    const command = create('tok');
    const { type: _, ...data } = command;
    spec
      .given([])
      .when(command)
      .then([{ type: 'ProxyConfigCreated', data }]);
  });

  it('checks the form of a sealed secret against the mechanism', () => {
    spec
      .given([])
      .when(create('no-colon', 'Basic'))
      .thenThrows(ValidationError, /a Basic secret has the form 'user:password'/);
    spec
      .given([])
      .when(create('', 'Bearer'))
      .thenThrows(ValidationError, /a Bearer secret is a non-empty token/);
    spec
      .given([])
      .when(create('tok', 'Headers'))
      .thenThrows(ValidationError, /a Headers secret is an object/);
    spec
      .given([])
      .when(create({}, 'Headers'))
      .thenThrows(ValidationError, /names at least one header/);
    spec
      .given([])
      .when(create({ 'X-Key': 'v' }, 'Bearer'))
      .thenThrows(ValidationError, /a Bearer secret is a string/);
  });

  it('checks the stored form when only the mechanism changes: a rule on the current state (400), not a body contradicting itself', () => {
    const update = (authMechanism: 'Basic' | 'Headers'): EnvCommand => ({ type: 'UpdateProxyConfig', config: 'billing', authMechanism });
    spec
      .given([created('me:pw')])
      .when(update('Basic'))
      .thenContains([{ type: 'ProxyConfigUpdated' }]);
    spec
      .given([created('tok')])
      .when(update('Basic'))
      .thenThrows(InvalidRequestError, /user:password/);
    spec
      .given([created('me:pw', 'Basic')])
      .when(update('Headers'))
      .thenThrows(InvalidRequestError, /Headers/);
  });
});
