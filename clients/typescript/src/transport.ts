// The fetch that openapi-fetch sends through: it adds what a generator
// cannot (as the Go client's doer does): the access token, the API
// version, an Idempotency-Key on every POST, PUT and DELETE, retries, and
// answers whose amounts survive JSON.parse exactly (src/json.ts).
import { randomUUID } from "node:crypto";
import { AccessTokens } from "./auth.js";
import { exactAmounts } from "./json.js";
import { type RetryPolicy, withRetries } from "./retry.js";

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  version: string;
  retry: RetryPolicy;
  fetch: typeof globalThis.fetch;
  now: () => number;
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/** createTransport returns a fetch for openapi-fetch's `fetch` option. */
export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  const { retry, version } = options;
  const tokens = new AccessTokens({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    now: options.now,
    // getToken only makes a token: sending it again is harmless.
    send: (make, signal) => withRetries(() => options.fetch(versioned(make(), version)), retry, signal, false),
  });
  return async (request) => {
    const safe = safeMethods.has(request.method);
    const body = safe ? undefined : await request.arrayBuffer();
    const headers = new Headers(request.headers);
    headers.set("Disburse-Version", version);
    if (!safe && !headers.has("Idempotency-Key")) {
      // One key for the call, kept by every retry of it, so that the
      // server replays the first answer instead of doing the work twice.
      headers.set("Idempotency-Key", randomUUID());
    }
    const sendWith = (token: string) => {
      headers.set("Authorization", `Bearer ${token}`);
      return options.fetch(new Request(request.url, { method: request.method, headers, body: body ?? null, signal: request.signal }));
    };
    const attempt = async () => {
      const token = await tokens.get(request.signal);
      const response = await sendWith(token);
      if (response.status !== 401) {
        return response;
      }
      // A token revoked or expired early: renew it once and send again (a
      // request the server refused with 401 did nothing).
      await response.body?.cancel();
      tokens.forget(token);
      return sendWith(await tokens.get(request.signal));
    };
    return exact(await withRetries(attempt, retry, request.signal, !safe));
  };
}

function versioned(request: Request, version: string): Request {
  request.headers.set("Disburse-Version", version);
  return request;
}

/** exact rewrites a JSON answer's amounts as strings of their text (src/json.ts). */
async function exact(response: Response): Promise<Response> {
  const type = response.headers.get("Content-Type") ?? "";
  if (!/[/+]json\b/.test(type) || response.body === null) {
    return response;
  }
  const raw = await response.text();
  let text = raw;
  try {
    text = raw === "" ? raw : exactAmounts(raw);
  } catch {
    // Not JSON after all (a proxy's page, say): openapi-fetch gives the text.
  }
  const headers = new Headers(response.headers);
  headers.set("Content-Length", String(Buffer.byteLength(text)));
  headers.delete("Content-Encoding");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}
