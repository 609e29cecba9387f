import { expect } from 'chai';
import { Redis } from 'ioredis';
import { coalesceWrites, type CoalescedWrites } from '../src/redis/coalesced-writes.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('coalesced Redis writes', function () {
  this.timeout(20_000);
  let redis: Redis;
  let writes: number;
  let coalesced: CoalescedWrites;

  beforeEach(async () => {
    redis = new Redis(REDIS_URL);
    coalesced = coalesceWrites(redis);
    await redis.ping();
    // Every socket write, single or gathered, passes through one of these two.
    writes = 0;
    const socket = redis.stream as unknown as { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
    const [write, writev] = [socket._write.bind(socket), socket._writev.bind(socket)];
    socket._write = (...args) => { writes++; write(...args); };
    socket._writev = (...args) => { writes++; writev(...args); };
  });
  afterEach(() => redis.disconnect());

  it('sends the commands of one event-loop turn in writes of up to 8, each command with its own reply', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => redis.echo(`reply ${i}`)));
    expect(replies).to.deep.equal(Array.from({ length: 20 }, (_, i) => `reply ${i}`));
    expect(writes).to.equal(3);
  });

  it('fails only the command that failed, not the others of its write', async () => {
    const results = await Promise.allSettled([
      redis.echo('before'),
      redis.eval("return redis.error_reply('boom')", 0),
      redis.echo('after'),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).to.match(/boom/);
    expect((results[2] as PromiseFulfilledResult<string>).value).to.equal('after');
    expect(writes).to.equal(1);
  });

  it('sends a command of a later turn without waiting for more', async () => {
    expect(await redis.echo('first')).to.equal('first');
    expect(await redis.echo('second')).to.equal('second');
    expect(writes).to.equal(2);
  });

  it('sends what a caller gathers over the turn with the turn\'s write, not in one of its own', async () => {
    // As the audit capture does: the entries of the requests answered in a turn, sent at its end.
    const gathered: string[] = [];
    let sent: Promise<string> | undefined;
    const echoed = redis.echo('a command of the turn');
    coalesced.atWrite(() => { sent = redis.echo(gathered.join(' ')); });
    gathered.push('gathered', 'entries');
    expect(await echoed).to.equal('a command of the turn');
    expect(await sent).to.equal('gathered entries');
    expect(writes).to.equal(1);
  });

  it('sends what a caller gathers in a turn that has no other command', async () => {
    let sent: Promise<string> | undefined;
    coalesced.atWrite(() => { sent = redis.echo('alone'); });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await sent).to.equal('alone');
    expect(writes).to.equal(1);
  });
});
