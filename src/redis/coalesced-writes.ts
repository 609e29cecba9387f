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
  /** Run just before the batch is written: their commands leave in the same write. */
  lastCalls: (() => void)[];
}

export interface CoalescedWrites {
  /**
   * Calls `send` at the end of this turn's write, so that the commands it sends go out with the
   * others of the turn rather than in a write of their own (a command sent from the check phase
   * would otherwise open a batch that waits for the next turn). For a caller that gathers work
   * over a turn, as the audit capture gathers the entries of the requests answered in it.
   */
  atWrite(send: () => void): void;
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
export function coalesceWrites(redis: Redis, maxBatch = MAX_BATCH): CoalescedWrites {
  let batch: Batch | undefined;
  const close = (closing: Batch): void => {
    // Once only: a batch closed early must not uncork its socket again for the next batch.
    if (!closing.open) return;
    closing.open = false;
    // Still the open batch while they run, so what they send joins its write.
    for (const call of closing.lastCalls.splice(0)) call();
    if (batch === closing) batch = undefined;
    closing.socket.uncork();
  };
  const open = (): Batch | undefined => {
    const socket = redis.stream;
    if (batch || !socket?.writable) return batch;
    const opened: Batch = batch = { socket, commands: 0, open: true, lastCalls: [] };
    socket.cork();
    setImmediate(() => close(opened));
    return opened;
  };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    open();
    const reply = send(command, stream);
    if (batch && ++batch.commands >= maxBatch) close(batch);
    return reply;
  };
  return {
    atWrite(call) {
      const current = open();
      if (current) current.lastCalls.push(call);
      else setImmediate(call); // not connected: ioredis queues the commands until it is
    },
  };
}
