import type { Redis } from 'ioredis';

/**
 * Makes the commands `redis` is given during one event-loop turn leave in one socket write.
 *
 * Under load an API process starts many requests in the same turn (one poll phase reads them
 * all), and each sends a Redis script. Written one by one, every command costs a write system
 * call, and on a loopback or LAN socket that call carries the whole TCP send path: in the
 * cached-search benchmark it was the process' largest single cost. Here the socket is corked at
 * the turn's first command and uncorked in the check phase (setImmediate), after every request
 * read in that poll phase has had its turn, so they leave in one writev.
 *
 * Unlike ioredis's autoPipelining, commands stay independent: each keeps its own reply and its
 * own error (a failing script fails only its request; see redis/ioredis#1931 for why
 * autoPipelining was not used). The added latency is the rest of the turn, microseconds.
 */
export function coalesceWrites(redis: Redis): void {
  let corked = false;
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    const socket = redis.stream;
    if (!corked && socket?.writable) {
      corked = true;
      socket.cork();
      // Uncorks this socket even if the connection was replaced meanwhile: a closed socket ignores it.
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return send(command, stream);
  };
}
