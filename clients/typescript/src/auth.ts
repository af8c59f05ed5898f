// The API key exchanged for access tokens (docs/api.md section 3), as the
// Go client does it: a token is renewed when a tenth of its lifetime is
// left, so that a request in flight never reaches the server with a token
// that expired on the way, and once more when the server answers 401 (a
// token revoked or expired early).

import { DisburseError } from "./errors.js";

/** What the transport needs to get a token. */
export interface TokenOptions {
  baseUrl: string;
  apiKey: string;
  /** Sends the getToken request (with its retries). */
  send: (request: () => Request, signal: AbortSignal | undefined) => Promise<Response>;
  /** The clock that decides when a token is due for renewal. */
  now: () => number;
}

/** AccessTokens holds the current token and gets a new one when it is due. */
export class AccessTokens {
  private token: string | undefined;
  private renewAt = 0;
  private pending: Promise<string> | undefined;

  constructor(private readonly options: TokenOptions) {}

  /**
   * get returns a token that is not near its expiry. Concurrent callers
   * share one exchange, which none of their signals can abort for the
   * others; a caller whose signal fires stops waiting for it.
   */
  get(signal?: AbortSignal): Promise<string> {
    if (this.token !== undefined && this.options.now() < this.renewAt) {
      return Promise.resolve(this.token);
    }
    this.pending ??= this.exchange().finally(() => {
      this.pending = undefined;
    });
    return signal === undefined ? this.pending : abortable(this.pending, signal);
  }

  /** forget drops token if it is still the current one, so that the next get renews it. */
  forget(token: string): void {
    if (this.token === token) {
      this.token = undefined;
    }
  }

  private async exchange(): Promise<string> {
    const { baseUrl, apiKey, send, now } = this.options;
    const request = () =>
      new Request(`${baseUrl}/authentication/getToken`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ apiKey }),
      });
    const response = await send(request, undefined);
    const text = await response.text();
    if (!response.ok) {
      throw new DisburseError(response.status, parseOrText(text));
    }
    const answer = JSON.parse(text) as { accessToken?: unknown; expiresIn?: unknown };
    if (typeof answer.accessToken !== "string" || typeof answer.expiresIn !== "number") {
      throw new Error(`getToken: an answer without accessToken and expiresIn: ${text}`);
    }
    const lifetimeMs = answer.expiresIn * 1000;
    this.token = answer.accessToken;
    this.renewAt = now() + lifetimeMs - lifetimeMs / 10;
    return this.token;
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
