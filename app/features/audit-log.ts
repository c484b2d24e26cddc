import { AuditLog } from '../../command-service/audit/audit-log';
import { AuditStreams } from '../../command-service/audit/event-stream';
import { eventRoutes } from '../../command-service/routes/events';
import { featureRegistry } from '../feature-registry';
import { AuditCollections } from '../../shared/read-models/audit-log';
import type { Feature } from '../feature';

/**
 * The audit log: an index of every event (a projection) and the endpoints
 * that read it, as pages or as server-sent events (docs/audit.md).
 */
export function auditLogFeature(): Feature {
  return {
    name: 'audit-log',
    projections: (rm) => featureRegistry['audit-log'].projections(rm),
    routes: (context) => {
      const log = new AuditLog(new AuditCollections(context.documentStore), context.eventStore, context.services.readModels);
      const streams = new AuditStreams(
        log,
        context.services.freshness,
        { checkpointMs: context.config.AUDIT_STREAM_CHECKPOINT_MS, maxStreams: context.config.AUDIT_MAX_STREAMS },
        context.logger.child({ component: 'audit-streams' }),
      );
      context.services.metrics.countAuditStreams(() => streams.openStreams, context.config.AUDIT_MAX_STREAMS);
      return eventRoutes({ log, streams });
    },
  };
}
