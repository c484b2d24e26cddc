import { startTestServer } from '../support/embedded-server';
import { expiryEventsSuite } from './support/expiry-events-suite';

// SQLite: a restart on the same data dir finds its read models there, so the name is not needed.
expiryEventsSuite('expiry events', (options) => startTestServer(options));
