// The client: openapi-fetch over the generated types (src/schema.gen.ts),
// sending through src/transport.ts, with date-times read as Date.
import createClient, { type Client, type MaybeOptionalInit, type ParseAsResponse } from "openapi-fetch";
import type {
  ErrorResponse,
  HttpMethod,
  MediaType,
  PathsWithMethod,
  RequiredKeysOf,
  ResponseObjectMap,
  SuccessResponse,
} from "openapi-typescript-helpers";
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

/**
 * DisburseClient is openapi-fetch's client, typed by path, whose answers
 * keep their Date values in their types: openapi-fetch's own answer type
 * passes every object through its Readable helper (for readOnly and
 * writeOnly markers, which this API's document has none of), and that
 * turns a Date's methods into empty objects.
 */
export interface DisburseClient {
  GET: Call<"get">;
  PUT: Call<"put">;
  POST: Call<"post">;
  DELETE: Call<"delete">;
  /** The openapi-fetch client underneath (middleware with `use`, other methods). */
  readonly raw: Client<paths>;
}

type Call<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Answer<paths[Path][Method], Init>>;

// As openapi-fetch's own: the options are optional when no parameter or body is required.
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** Answer is openapi-fetch's FetchResponse without its Readable. */
export type Answer<Operation, Init, Media extends MediaType = MediaType> =
  ResponseObjectMap<Operation> extends infer Responses extends Record<string | number, any>
    ?
        | { data: ParseAsResponse<SuccessResponse<Responses, Media>, Init>; error?: never; response: Response }
        | { data?: never; error: ErrorResponse<Responses, Media>; response: Response }
    : never;

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
  const raw = createClient<paths>({ baseUrl, fetch, bodySerializer: stringifyJSON });
  // Each call's data and error get their date-times as Date: openapi-fetch
  // parses with JSON.parse, which has no way to make one.
  const dated =
    (call: (url: never, init?: never) => Promise<{ data?: unknown; error?: unknown }>) =>
    async (url: never, init?: never) => {
      const result = await call(url, init);
      reviveDates(result.data);
      reviveDates(result.error);
      return result;
    };
  return {
    GET: dated(raw.GET) as DisburseClient["GET"],
    PUT: dated(raw.PUT) as DisburseClient["PUT"],
    POST: dated(raw.POST) as DisburseClient["POST"],
    DELETE: dated(raw.DELETE) as DisburseClient["DELETE"],
    raw,
  };
}
