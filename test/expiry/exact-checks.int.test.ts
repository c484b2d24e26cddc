import { startTestServer } from '../support/embedded-server';
import { exactChecksSuite } from './support/exact-checks-suite';

exactChecksSuite('expires_at: checks exact to the millisecond', (options) => startTestServer(options));
