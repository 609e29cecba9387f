import type { Socket } from 'node:net';

/**
 * The origin a client reached the service at, from its connection alone: for answers written
 * before a Host header is known (or when none was sent), so their documentation links are
 * absolute. '' once the socket is closed.
 */
export function socketOrigin(socket: Socket & { encrypted?: boolean }): string {
  const address = socket.localAddress;
  if (address === undefined || socket.localPort === undefined) return '';
  const host = address.includes(':') ? `[${address}]` : address;
  return `${socket.encrypted ? 'https' : 'http'}://${host}:${socket.localPort}`;
}
