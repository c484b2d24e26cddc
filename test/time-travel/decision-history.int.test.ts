import { startTestServer } from '../support/embedded-server';
import { decisionHistorySuite } from './support/decision-history-suite';

decisionHistorySuite('the history of a decision', () => startTestServer());
