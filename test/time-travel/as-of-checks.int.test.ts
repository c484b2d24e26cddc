import { startTestServer } from '../support/embedded-server';
import { asOfCheckSuite } from './support/as-of-check-suite';

asOfCheckSuite('checks as of a past position', () => startTestServer());
