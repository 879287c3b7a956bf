import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { IndexProgress } from '../../knowledge/index-runner.port.js';

/**
 * When the call asked for progress (a `progressToken` in its `_meta`), a listener that reports the
 * files indexed over every repository of the run as `notifications/progress`, only when the count
 * grew (the spec wants each notification's progress above the last); otherwise undefined.
 */
export function indexProgress(
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): ((repository: string, progress: IndexProgress) => void) | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  const byRepository = new Map<string, IndexProgress>();
  let reported = -1;
  return (repository, progress) => {
    byRepository.set(repository, progress);
    const runs = [...byRepository.values()];
    const done = runs.reduce((sum, run) => sum + run.files_done, 0);
    if (done <= reported) return;
    reported = done;
    const total = runs.reduce((sum, run) => sum + run.files_total, 0);
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: done, total, message: `${repository}: ${progress.files_done}/${progress.files_total} files` },
      })
      // A host that left stops hearing; the run goes on.
      .catch(() => undefined);
  };
}
