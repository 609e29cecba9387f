import type { Redis } from 'ioredis';

/**
 * Commands a write carries at most: the first part of a wave of requests is on its way to Redis
 * while the rest is still being prepared. 8 measured best for 16 concurrent cached searches
 * (44 % of the bare handler against 34–38 % with one write per turn, and 39–40 % with 4).
 */
const MAX_BATCH = 8;

interface Batch {
  socket: Redis['stream'];
  commands: number;
  open: boolean;
}

/**
 * Makes the commands `redis` is given during one event-loop turn leave in few socket writes.
 *
 * Under load an API process starts many requests in the same turn (one poll phase reads them
 * all), and each sends a Redis script. Written one by one, every command costs a write system
 * call, and on a loopback or LAN socket that call carries the whole TCP send path: in the
 * cached-search benchmark it was the process' largest single cost. Here the socket is corked at
 * a command and uncorked when `maxBatch` commands have gathered, or in the check phase
 * (setImmediate) after every request read in that poll phase has had its turn. Capping the
 * batch keeps the process busy while Redis answers: one write for a whole wave of requests
 * would leave it idle for the round trip, with every request waiting on the same reply.
 *
 * Unlike ioredis's autoPipelining, commands stay independent: each keeps its own reply and its
 * own error (a failing script fails only its request; see redis/ioredis#1931 for why
 * autoPipelining was not used). The added latency is the rest of the turn, microseconds.
 */
export function coalesceWrites(redis: Redis, maxBatch = MAX_BATCH): void {
  let batch: Batch | undefined;
  const close = (closing: Batch): void => {
    // Once only: a batch closed early must not uncork its socket again for the next batch.
    if (!closing.open) return;
    closing.open = false;
    if (batch === closing) batch = undefined;
    closing.socket.uncork();
  };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    const socket = redis.stream;
    if (!batch && socket?.writable) {
      const opened: Batch = batch = { socket, commands: 0, open: true };
      socket.cork();
      setImmediate(() => close(opened));
    }
    const reply = send(command, stream);
    if (batch && ++batch.commands >= maxBatch) close(batch);
    return reply;
  };
}
