import { startTestServer } from '../support/embedded-server';
import { abacCheckSuite } from './support/abac-check-suite';

abacCheckSuite('checks evaluate set rules', () => startTestServer());
