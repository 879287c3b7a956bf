export interface JsonReply {
  status: number;
  /** The parsed JSON body, or the text when it is not JSON (an event stream, say). */
  body: any;
  headers: Headers;
}

/** One request to the API with an optional token and JSON body (a string body is sent as is). */
export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  { key, body, headers = {} }: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonReply> {
  const sent: Record<string, string> = { ...(key ? { authorization: `Token ${key}` } : {}), ...headers };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    sent['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers: sent, body: payload });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
