import { startTestServer } from '../support/embedded-server';
import { asOfReadSuite } from './support/as-of-read-suite';

asOfReadSuite('reads as of a past position', () => startTestServer());
