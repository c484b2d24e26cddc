import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError, InvalidRequestError } from '../../shared/errors';
import { errorBody } from './error-middleware';

/** A request line or headers over Node's limit (16 KiB): refused before express sees the request. */
class HeadersTooLargeError extends DomainError {
  readonly errorCode = 'REQUEST_HEADER_FIELDS_TOO_LARGE';
  readonly title = 'Request header fields too large';
}

/**
 * Requests Node's HTTP parser refuses never reach express: without this, an oversized URL or
 * header block is answered 431 with no body and a malformed request 400 with none. Both are
 * answered here in the API's error shape instead.
 */
export function answerUnparsableRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const refusal: DomainError = tooLarge
      ? new HeadersTooLargeError('The URL or the headers are larger than the server reads (16 KiB)')
      : new InvalidRequestError('The request is not valid HTTP');
    const body = JSON.stringify(errorBody(refusal));
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
