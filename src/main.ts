import { runProcess } from './lifecycle.js';

// `npm start`: API, workers and pool in one process. `npm run api` passes --role=api.
await runProcess(process.argv.includes('--role=api') ? 'api' : 'all');
