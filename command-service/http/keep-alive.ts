import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes a kept-alive connection left idle past the server's keep-alive timeout, as Node does,
 * except one whose client sent its next request in time.
 *
 * Node arms the timeout when an answer is written and destroys the socket when it fires. Its
 * timers run before the event loop reads the sockets: when the loop was held up for longer than
 * the timeout (a long piece of synchronous work), the timeout fires first on a connection whose
 * next request came in time and is still unread in the kernel, and the destroyed socket resets
 * it: the client gets ECONNRESET for a request it sent on an open connection, and cannot tell
 * whether it was served. With a listener of the server's 'timeout' event Node leaves the socket
 * to it; this one decides after the loop's next look at the sockets (setImmediate runs after it):
 * a socket that read something meanwhile is serving its next request and lives on, any other is
 * destroyed as Node would have.
 */
export function keepRequestsSentInTime(server: Server): void {
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    setImmediate(() => {
      if (!socket.destroyed && socket.bytesRead === read) socket.destroy();
    });
  });
}
