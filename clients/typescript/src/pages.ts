// Paging through a list of version 2026-12-01, whose answers are
// {"data": [...], "hasMore": bool, "nextCursor": string|null} and take
// ?cursor=&limit= (docs/versioning.md): each page costs the server the
// same at any depth, and the last one says so.

/** One page of a list. */
export interface Page<Item> {
  data: Item[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * pages yields every item of a list, asking for each page with the
 * cursor of the one before (undefined for the first):
 *
 *   for await (const p of pages((cursor) => unwrap(await api.GET("/batches/{id}/payments",
 *     { params: { path: { id }, query: { cursor, limit: 1000 } } }))))
 */
export async function* pages<Item>(page: (cursor: string | undefined) => Promise<Page<Item>>): AsyncGenerator<Item> {
  let cursor: string | undefined;
  for (;;) {
    const current = await page(cursor);
    yield* current.data;
    if (!current.hasMore || current.nextCursor === null) {
      return;
    }
    cursor = current.nextCursor;
  }
}
