// `node --import` this file: every OpenTelemetry module the process resolves, by its URL, is added
// as a line to the file AIOPS_TEST_OTEL_IMPORTS names, so a test can tell which parts were loaded.
// In the main thread it registers itself as the module loader's hooks; the hooks run in their own thread.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.includes('/@opentelemetry/')) appendFileSync(process.env.AIOPS_TEST_OTEL_IMPORTS, `${resolved.url}\n`);
  return resolved;
}
