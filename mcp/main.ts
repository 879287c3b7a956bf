// Runs `aiops mcp` straight from the sources (`node --import tsx mcp/main.ts [--http PORT]`);
// the tests and the benchmark start the stdio server this way.
import { main } from '../cli/main.js';

process.exitCode = await main(['mcp', ...process.argv.slice(2)]);
