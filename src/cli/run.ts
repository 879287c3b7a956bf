// Process entry of the `aiops` command (bin/aiops.js loads the compiled copy of this file).
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
// A role that stopped waiting at shutdown (a job still running past SHUTDOWN_TIMEOUT_MS) may leave
// a connection open; the process ends all the same, once its last lines are written.
setTimeout(() => process.exit(), 1_000).unref();
