import fs from 'node:fs';
import Koa from 'koa';

/**
 * The reference of the cached-search benchmark, in a process of its own: a Koa app with one
 * middleware that answers every request with the JSON object in the file named by argv[3]
 * (Koa serialises it, as a minimal JSON handler does), on the port argv[2]. It prints
 * `listening` once it accepts connections.
 */
const [port, file] = process.argv.slice(2);
const body: unknown = JSON.parse(fs.readFileSync(file!, 'utf8'));
const app = new Koa();
app.use(async (ctx) => {
  ctx.body = body;
});
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
