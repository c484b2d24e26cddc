import type { Socket } from 'node:net';

/** What the front door read of a connection before choosing the process that serves it. */
export interface FirstBytes {
  /** The bytes read (possibly none): whoever serves the connection must parse them first. */
  bytes: Buffer;
  /**
   * The socket reads no more in this process, so it can go to another process whole: what was read
   * is in `bytes` and the rest is still in the kernel's buffer. False when reading could not be
   * stopped; such a socket must be served here (sent away, the bytes read after `bytes` would be lost).
   */
  stopped: boolean;
}

/** The private parts of a socket's stream handle (libuv) that `stopReading` needs. */
interface StreamHandle {
  reading?: boolean;
  readStop?: () => number;
}

/**
 * Reads the first chunk of a connection accepted paused (`pauseOnConnect`), then stops the
 * socket reading. Resolves with no bytes if nothing came within `timeoutMs` (the connection is
 * then served here, where the HTTP server's own timeouts apply), and with null if the connection
 * ended or failed first.
 *
 * Read in paused mode ('readable'), one chunk, with the handle stopped in the same callback: in
 * flowing mode the handle reads on before the 'data' event reaches a listener, and a chunk read
 * in this process is lost once the socket is handed to another (seen in a trial: docs/bench-history/2026-11-27.md).
 */
export function readFirstBytes(socket: Socket, timeoutMs: number): Promise<FirstBytes | null> {
  return new Promise((resolve) => {
    const finish = (result: FirstBytes | null) => {
      clearTimeout(timer);
      socket.off('readable', onReadable);
      socket.off('end', onGone);
      socket.off('error', onGone);
      socket.off('close', onGone);
      resolve(result);
    };
    // Stopped last: a `read()` below the high-water mark starts the handle reading again.
    const onReadable = () => {
      const bytes = socket.read() as Buffer | null;
      if (bytes === null) return;
      finish({ bytes, stopped: stopReading(socket) });
    };
    const onGone = () => finish(null);
    const timer = setTimeout(() => {
      const bytes = (socket.read() as Buffer | null) ?? Buffer.alloc(0);
      finish({ bytes, stopped: stopReading(socket) });
    }, timeoutMs);
    socket.on('readable', onReadable);
    socket.once('end', onGone);
    socket.once('error', onGone);
    socket.once('close', onGone);
  });
}

/**
 * Stops the socket's handle reading from the kernel. `pause()` does not: a paused socket keeps
 * reading into its buffer up to its high-water mark. This is what net.Socket's own `pause` does
 * for sockets given an `onread` buffer; its reading starts again on `resume()`.
 *
 * The handle and its `readStop` are private parts of Node, used on purpose: Node 20 has no public
 * way to stop an accepted socket reading, and the front door must, to send the connection on with
 * nothing read but the bytes it sends along. The public ways to share a port between processes
 * (node:cluster, or the listening socket handed to each worker) choose the process before a byte
 * is read: a connection that begins with a write or a list would land on a check worker about as
 * often as its share, and each of its requests would then cost a second HTTP exchange, over
 * loopback, to this process. The one public setting that makes a socket stop reading after a
 * chunk, a server's `highWaterMark`, sets the writable mark too, of every connection this process
 * serves, and with a writable mark of nothing node:http pauses each connection at every request
 * until its answer is written. The bench's single-create rows measured a shared listening socket
 * against this front door: each create cost the service more CPU, and fewer were answered (see
 * the change that kept it). Should a later Node lack `readStop`, `stopped` is false and every
 * connection is served here: slower, not wrong.
 */
function stopReading(socket: Socket): boolean {
  const handle = (socket as unknown as { _handle?: StreamHandle | null })._handle;
  if (!handle || typeof handle.readStop !== 'function') return false;
  handle.reading = false;
  return handle.readStop() === 0;
}

/** The method and path (no query) of an HTTP/1 request line at the start of `bytes`; null if they are not all there. */
export function requestLine(bytes: Buffer): { method: string; path: string } | null {
  const end = bytes.indexOf('\r\n');
  if (end < 0) return null;
  const match = /^([A-Z]+) (\/[^ ?]*)(?:\?[^ ]*)? HTTP\/1\.[01]$/.exec(bytes.toString('latin1', 0, end));
  return match ? { method: match[1]!, path: match[2]! } : null;
}
