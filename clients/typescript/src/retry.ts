// Sending a request again when the answer says nothing was done and a
// later try may work: a network error, 429, 502, 503 or 504 (docs/api.md
// section 2: a 429 and a 503 carry Retry-After, which wins over the
// backoff), and, for a request with an Idempotency-Key, 409
// idempotency_in_progress, whose first try is still running
// (docs/idempotency.md).

/** How a request is retried. */
export interface RetryPolicy {
  /** Tries after the first; 0 sends once. */
  retries: number;
  /** The first wait in milliseconds, doubled at each try. */
  backoffMs: number;
  /** The longest wait, Retry-After included, in milliseconds. */
  maxWaitMs: number;
}

const retryableStatus = new Set([429, 502, 503, 504]);

/**
 * withRetries calls send until its answer is final or the tries run out,
 * and returns the last answer (or throws the last network error).
 */
export async function withRetries(
  send: () => Promise<Response>,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  keyed: boolean,
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    let response: Response | undefined;
    try {
      response = await send();
    } catch (error) {
      if (signal?.aborted || attempt >= policy.retries) {
        throw error;
      }
    }
    if (response !== undefined && (attempt >= policy.retries || !(await retryable(response, keyed)))) {
      return response;
    }
    const wait = waitMs(response, attempt, policy);
    await response?.body?.cancel();
    await sleep(wait, signal);
  }
}

async function retryable(response: Response, keyed: boolean): Promise<boolean> {
  if (retryableStatus.has(response.status)) {
    return true;
  }
  if (keyed && response.status === 409) {
    const problem = (await response.clone().json().catch(() => undefined)) as { code?: unknown } | undefined;
    return problem?.code === "idempotency_in_progress";
  }
  return false;
}

/** waitMs is the answer's Retry-After when it has one, else the backoff. */
export function waitMs(response: Response | undefined, attempt: number, policy: RetryPolicy): number {
  const backoff = policy.backoffMs * 2 ** attempt;
  const header = response?.headers.get("Retry-After")?.trim();
  let wait = backoff;
  if (header && /^[0-9]+$/.test(header)) {
    wait = Number(header) * 1000;
  } else if (header) {
    const at = Date.parse(header); // the HTTP-date form
    if (!Number.isNaN(at)) {
      wait = Math.max(0, at - Date.now());
    }
  }
  return Math.min(wait, policy.maxWaitMs);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
