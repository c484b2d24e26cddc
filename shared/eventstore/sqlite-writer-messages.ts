import type { AppendResult, ExpectedVersion } from './port';

/** What the SQLite event store's writer thread (sqlite-writer-thread.ts) is started with. */
export interface WriterData {
  /** The event log's file (the store's own connection created its schema). */
  path: string;
}

/** One append as the writer takes it: `rows` holds type, data JSON and metadata JSON for each event. */
export interface WriterAppend {
  streamId: string;
  category: string;
  expected: ExpectedVersion;
  rows: string[];
}

/** One transaction for the writer, with the size limit it runs under (bytes; null: none). */
export interface WriterMessage {
  appends: WriterAppend[];
  maxBytes: number | null;
}

/** An append the writer refused: the stream's version was not the one expected. */
export interface WriterConflict {
  conflict: number;
}

/** The writer's answer to a WriterMessage: each append's outcome, in order, or the error that rolled the whole transaction back. */
export type WriterReply = { outcomes: Array<AppendResult | WriterConflict> } | { error: { message: string; code?: string } };
