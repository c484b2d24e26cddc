import type { Request, Response } from 'express';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { UnavailableError, ValidationError } from '../../shared/errors';
import type { Freshness } from '../http/services';
import type { AuditLog } from './audit-log';

export interface AuditStreamOptions {
  /** How often a `checkpoint` event reports the position the stream has reached. */
  checkpointMs: number;
  /** Most streams this process serves at once; one more is a 503. */
  maxStreams: number;
}

/** Entries read per index query while a stream catches up. */
const CATCH_UP_PAGE = 500;
/** Longest sleep between looks at whether the server is closing. */
const WAKE_MS = 1000;

/**
 * The audit log as server-sent events: each matching entry as a message whose
 * `id` is its position, in log order, from `Last-Event-ID` (or `after`; by
 * default from the head, new events only), then live as the read models move.
 * A `checkpoint` event (`id` and `data.head_position`: the position up to which
 * every match was sent) comes when the stream first catches up and every
 * `checkpointMs` after: a filtered reader resumes from it rather than from its
 * last match, and proxies see traffic. At least once: a reader that resumes
 * from an `id` gets what follows it.
 */
export class AuditStreams {
  private open = 0;

  constructor(
    private readonly log: AuditLog,
    private readonly freshness: Freshness,
    private readonly options: AuditStreamOptions,
    private readonly logger: Logger,
  ) {}

  get openStreams(): number {
    return this.open;
  }

  /** Where a stream starts: `Last-Event-ID` wins over `after`; neither: the head. */
  startOf(req: Request, after: number | undefined): number {
    const lastId = req.header('last-event-id');
    if (lastId !== undefined) {
      if (!/^\d{1,16}$/.test(lastId.trim()))
        throw new ValidationError([
          { loc: ['header', 'last-event-id'], msg: 'must be a position (a non-negative integer)', type: 'value_error' },
        ]);
      return Number(lastId.trim());
    }
    return after ?? this.freshness.position;
  }

  async serve(req: Request, res: Response, scope: string, groups: string[][], from: number): Promise<void> {
    if (this.open >= this.options.maxStreams) {
      throw new UnavailableError(
        `This server already serves ${this.options.maxStreams} audit streams (AUDIT_MAX_STREAMS); retry later or elsewhere`,
      );
    }
    this.open++;
    let closed = false;
    let wake: (() => void) | null = null;
    const onClose = () => {
      closed = true;
      wake?.();
    };
    res.on('close', onClose);
    const server = (req.socket as Socket & { server?: Server }).server;
    try {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        // The connection ends with the stream: kept alive, it would hold up a shutdown until its keep-alive timeout.
        connection: 'close',
      });
      res.write(`: audit log from position ${from}\n\n`);
      let cursor = from;
      let lastCheckpoint = -Infinity;
      const write = async (chunk: string) => {
        if (closed || res.write(chunk)) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          res.once('drain', resolve);
        });
        wake = null;
      };
      while (!closed && server?.listening !== false) {
        const head = this.freshness.position;
        let caughtUp = true;
        if (head > cursor) {
          const page = await this.log.page(scope, { groups, order: 'asc', after: cursor, limit: CATCH_UP_PAGE }, head);
          for (const entry of page.data) await write(`id: ${entry.position}\ndata: ${JSON.stringify(entry)}\n\n`);
          cursor = page.next_after ?? head;
          caughtUp = page.next_after === null;
        }
        const now = Date.now();
        if (lastCheckpoint === -Infinity ? caughtUp : now - lastCheckpoint >= this.options.checkpointMs) {
          await write(`event: checkpoint\nid: ${cursor}\ndata: ${JSON.stringify({ head_position: cursor })}\n\n`);
          lastCheckpoint = now;
        }
        if (!caughtUp) continue;
        const sleep = Math.max(1, Math.min(WAKE_MS, lastCheckpoint + this.options.checkpointMs - Date.now()));
        await Promise.race([
          this.freshness.waitForPosition(cursor + 1, sleep),
          new Promise<void>((resolve) => {
            wake = resolve;
          }),
        ]);
        wake = null;
      }
    } catch (error) {
      // The status is sent: all that is left is to end the stream (the client resumes from its last id).
      this.logger.error({ err: error, scope }, 'audit stream failed');
    } finally {
      this.open--;
      res.off('close', onClose);
      if (!res.writableEnded) res.end();
    }
  }
}
