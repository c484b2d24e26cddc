import { startTracing } from '../../shared/tracing/start';

// Imported first by its entry point, so the instrumentations hook what the entry point loads next.
startTracing('rebac', 'main');
