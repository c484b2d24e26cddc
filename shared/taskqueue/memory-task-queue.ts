import type { ConsumeOptions, TaskConsumer, TaskHandler, TaskMessage, TaskQueue } from './port';

export interface MemoryTaskQueueOptions {
  /** Wait before a message that was not acknowledged is delivered again. Default 1 s. */
  redeliveryDelayMs?: number;
  /** How many recent messages a group that joins later still receives (Kafka's retention). Default 10,000. */
  retainedMessages?: number;
}

interface Entry {
  message: TaskMessage;
  attempt: number;
  /** Not delivered before this time (redelivery backoff). */
  notBefore: number;
}

interface Member {
  handler: TaskHandler;
  concurrency: number;
  running: Set<Promise<void>>;
  stopped: boolean;
}

/** One consumer group: its own copy of every message, shared out between its members. */
class Group {
  readonly waiting: Entry[] = [];
  /** Keys with a delivery in flight: the next message of a key waits for it. */
  readonly busyKeys = new Set<string>();
  readonly members: Member[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly redeliveryDelayMs: number) {}

  add(message: TaskMessage): void {
    this.waiting.push({ message, attempt: 1, notBefore: 0 });
    this.pump();
  }

  /** Hands waiting messages to members with room, keeping per-key order; schedules itself for backed-off ones. */
  pump(): void {
    const now = Date.now();
    let earliest = Infinity;
    const blocked = new Set<string>();
    for (let i = 0; i < this.waiting.length; i++) {
      const entry = this.waiting[i]!;
      const key = entry.message.key;
      if (this.busyKeys.has(key) || blocked.has(key)) continue;
      blocked.add(key);
      if (entry.notBefore > now) {
        earliest = Math.min(earliest, entry.notBefore);
        continue;
      }
      const member = this.pickMember();
      if (!member) break;
      this.waiting.splice(i, 1);
      i--;
      this.deliver(member, entry);
    }
    if (earliest !== Infinity && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, earliest - now);
    }
  }

  private pickMember(): Member | undefined {
    const live = this.members.filter((m) => !m.stopped && m.running.size < m.concurrency);
    if (live.length === 0) return undefined;
    this.next = (this.next + 1) % live.length;
    return live[this.next];
  }

  private deliver(member: Member, entry: Entry): void {
    const key = entry.message.key;
    this.busyKeys.add(key);
    let acked = false;
    const run = (async () => {
      try {
        await member.handler({
          message: entry.message,
          attempt: entry.attempt,
          ack: async () => {
            acked = true;
          },
        });
      } catch {
        // Not done: redelivered below.
      }
    })().finally(() => {
      member.running.delete(run);
      this.busyKeys.delete(key);
      if (!acked) {
        // At the front of its key, so later messages of the key still wait for it.
        const delay = member.stopped ? 0 : this.redeliveryDelayMs;
        this.waiting.unshift({ message: entry.message, attempt: entry.attempt + 1, notBefore: Date.now() + delay });
      }
      this.pump();
    });
    member.running.add(run);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * The embedded task queue: in process, at least once, per-key order, consumer
 * groups. Each group holds a message until one of its members acknowledges it;
 * a group that joins later starts from the oldest retained message (as a new
 * Kafka group starting at the earliest offset would). Nothing survives the
 * process (`durable` is false).
 */
export class MemoryTaskQueue implements TaskQueue {
  readonly durable = false;
  private readonly groups = new Map<string, Group>();
  /** Every message, for groups that join later. */
  private readonly history: TaskMessage[] = [];
  private readonly redeliveryDelayMs: number;
  private readonly retainedMessages: number;
  private closed = false;

  constructor(options: MemoryTaskQueueOptions = {}) {
    this.redeliveryDelayMs = options.redeliveryDelayMs ?? 1000;
    this.retainedMessages = options.retainedMessages ?? 10_000;
  }

  async publish(message: TaskMessage): Promise<void> {
    if (this.closed) throw new Error('task queue is closed');
    const copy = JSON.parse(JSON.stringify(message)) as TaskMessage;
    this.history.push(copy);
    if (this.history.length > this.retainedMessages) this.history.shift();
    for (const group of this.groups.values()) group.add(copy);
  }

  async consume(options: ConsumeOptions, handler: TaskHandler): Promise<TaskConsumer> {
    if (this.closed) throw new Error('task queue is closed');
    let group = this.groups.get(options.group);
    if (!group) {
      group = new Group(this.redeliveryDelayMs);
      this.groups.set(options.group, group);
      for (const message of this.history) group.waiting.push({ message, attempt: 1, notBefore: 0 });
    }
    const member: Member = { handler, concurrency: Math.max(1, options.concurrency ?? 1), running: new Set(), stopped: false };
    group.members.push(member);
    const joined = group;
    setImmediate(() => joined.pump());
    return {
      async stop() {
        if (member.stopped) return;
        member.stopped = true;
        joined.members.splice(joined.members.indexOf(member), 1);
        while (member.running.size > 0) await Promise.allSettled([...member.running]);
        joined.pump();
      },
    };
  }

  /** Messages not yet acknowledged by a group (for tests and metrics). */
  pendingCount(group: string): number {
    const g = this.groups.get(group);
    return g ? g.waiting.length + g.busyKeys.size : 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const group of this.groups.values()) {
      for (const member of [...group.members]) member.stopped = true;
      await Promise.allSettled(group.members.flatMap((m) => [...m.running]));
      group.close();
    }
  }
}
