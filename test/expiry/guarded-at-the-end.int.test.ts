import { startTestServer } from '../support/embedded-server';
import { guardedAtTheEndSuite } from './support/guarded-at-the-end-suite';

guardedAtTheEndSuite('expires_at: a guarded role given back at the end of the last direct role', (options) => startTestServer(options));
