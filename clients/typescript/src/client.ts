// The client: openapi-fetch over the generated types (src/schema.gen.ts),
// sending through src/transport.ts, with date-times read as Date.
import createClient, { type Client } from "openapi-fetch";
import { reviveDates, stringifyJSON } from "./json.js";
import type { paths } from "./schema.gen.js";
import { createTransport } from "./transport.js";

/** The API version this client's types were generated from, sent as Disburse-Version. */
export const apiVersion = "2026-12-01";

export interface ClientOptions {
  /** The API's base URL, e.g. https://disburse.example.com. */
  baseUrl: string;
  /** The organisation's API key; exchanged for access tokens, renewed before they expire. */
  apiKey: string;
  /** The Disburse-Version to send; default apiVersion. */
  version?: string;
  /** Tries after the first, for GETs and for writes (which keep their Idempotency-Key); default 4, 0 for none. */
  retries?: number;
  /** The first wait between tries in milliseconds, doubled each time (a Retry-After wins); default 200. */
  backoffMs?: number;
  /** The longest wait between tries, a Retry-After's included, in milliseconds; default 60000. */
  maxWaitMs?: number;
  /** Sends the requests; default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** The clock (milliseconds) that decides when a token is due for renewal; default Date.now. */
  now?: () => number;
}

export type DisburseClient = Client<paths>;

const calls = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "request"]);

/**
 * createDisburseClient returns an openapi-fetch client of the API: call
 * `client.POST("/batches", { body: { name: "November" } })` and so on,
 * typed by path. Amounts are strings of exact decimals, date-times Date.
 */
export function createDisburseClient(options: ClientOptions): DisburseClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetch = createTransport({
    baseUrl,
    apiKey: options.apiKey,
    version: options.version ?? apiVersion,
    retry: {
      retries: options.retries ?? 4,
      backoffMs: options.backoffMs ?? 200,
      maxWaitMs: options.maxWaitMs ?? 60_000,
    },
    fetch: options.fetch ?? globalThis.fetch,
    now: options.now ?? Date.now,
  });
  const client = createClient<paths>({ baseUrl, fetch, bodySerializer: stringifyJSON });
  // Each call's data and error get their date-times as Date: openapi-fetch
  // parses with JSON.parse, which has no way to make one.
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !calls.has(property) || typeof value !== "function") {
        return value;
      }
      return async (...args: unknown[]) => {
        const result = (await value.apply(target, args)) as { data?: unknown; error?: unknown };
        reviveDates(result.data);
        reviveDates(result.error);
        return result;
      };
    },
  });
}
