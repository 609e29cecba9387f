import { runProcess } from '../src/lifecycle.js';

// `npm run worker`: queue workers and the CPU pool only, for scaling out against the same Redis and MySQL.
await runProcess('worker');
