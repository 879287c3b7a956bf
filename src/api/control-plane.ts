/**
 * The service's control plane: the parts of its API that act on people's work and credentials
 * rather than on the platform's data. The chat API (turns, jobs and their approvals, events,
 * sessions, whatever else it grows), API tokens and personal platform tokens. A chat turn's
 * delegated key is refused there (an agent could otherwise approve another turn's write or mint
 * a permanent token whose key it then reads), by the request tool before anything is planned and
 * by the API itself.
 */
const CONTROL_PLANE = /^\/(?:plugins\/ai-ops\/api\/chat|api\/users|api\/plugins\/ai-ops\/platform-token)(?:\/|$)/;

/** Percent-decoding rounds a path gets: as many as anything between the agent and the route could undo. */
const DECODE_ROUNDS = 3;

/**
 * The path as a router could read it: percent-decoded (a few rounds), in lower case (Express
 * routes ignore case), runs of slashes as one. Malformed encodings are kept as they are: such a
 * path matches no route.
 */
function routeForm(path: string): string {
  let decoded = path;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      break;
    }
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.toLowerCase().replace(/\/{2,}/g, '/');
}

/** Why a chat turn's key may not reach `path`, or undefined when it may. */
export function controlPlaneRefusal(path: string): string | undefined {
  if (!CONTROL_PLANE.test(routeForm(path))) return undefined;
  return (
    `${path} is this service's control plane (the chat API, API tokens, personal platform tokens): ` +
    "a chat turn's key may not call it, so approving turns and managing tokens stay with people"
  );
}
