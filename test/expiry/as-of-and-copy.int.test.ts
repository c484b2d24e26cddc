import { startTestServer } from '../support/embedded-server';
import { asOfAndCopySuite } from './support/as-of-and-copy-suite';

asOfAndCopySuite('expires_at: as_of and environment copy', (options) => startTestServer(options));
